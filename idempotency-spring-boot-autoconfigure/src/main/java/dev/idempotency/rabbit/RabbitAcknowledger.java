package dev.idempotency.rabbit;

import java.io.IOException;

import com.rabbitmq.client.Channel;
import dev.idempotency.core.MessageAcknowledger;

import org.springframework.amqp.rabbit.support.RabbitExceptionTranslator;

/**
 * Acknowledges one delivery on the channel it came on ({@code basic.ack}, not multiple): the
 * interceptor calls it after the business transaction committed, for a processed message and a
 * duplicate alike. At most once; not thread-safe (one consumer thread holds a delivery).
 */
final class RabbitAcknowledger implements MessageAcknowledger {

	private final Channel channel;

	private final long deliveryTag;

	private boolean acknowledged;

	RabbitAcknowledger(Channel channel, long deliveryTag) {
		this.channel = channel;
		this.deliveryTag = deliveryTag;
	}

	@Override
	public void acknowledge() {
		if (this.acknowledged) {
			return;
		}
		try {
			this.channel.basicAck(this.deliveryTag, false);
			this.acknowledged = true;
		}
		catch (IOException | RuntimeException ex) {
			// A closed channel: the broker redelivers the message, and the redelivery is a duplicate.
			throw RabbitExceptionTranslator.convertRabbitAccessException(ex);
		}
	}

	/**
	 * Whether the delivery was acknowledged.
	 * @return {@code true} after a successful {@link #acknowledge()}
	 */
	boolean isAcknowledged() {
		return this.acknowledged;
	}

	/**
	 * Hands the delivery back to the broker ({@code basic.reject} with requeue), for a delivery held
	 * when its container stops; a closed channel has handed it back already.
	 */
	void requeue() {
		if (this.acknowledged || !this.channel.isOpen()) {
			return;
		}
		try {
			this.channel.basicReject(this.deliveryTag, true);
			this.acknowledged = true;
		}
		catch (IOException | RuntimeException ex) {
			// The channel closed meanwhile: the broker requeues it anyway.
		}
	}

	/**
	 * Dead-letters the delivery through its queue's dead-letter exchange ({@code basic.nack} without
	 * requeue): the broker adds {@code x-death}, but no cause.
	 * @throws org.springframework.amqp.AmqpException if the channel failed
	 */
	void rejectToDeadLetterExchange() {
		try {
			this.channel.basicNack(this.deliveryTag, false, false);
			this.acknowledged = true;
		}
		catch (IOException | RuntimeException ex) {
			throw RabbitExceptionTranslator.convertRabbitAccessException(ex);
		}
	}

	/**
	 * The channel the delivery came on.
	 * @return the channel
	 */
	Channel channel() {
		return this.channel;
	}

}
