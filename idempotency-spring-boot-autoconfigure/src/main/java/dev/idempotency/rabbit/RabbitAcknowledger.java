package dev.idempotency.rabbit;

import java.io.IOException;

import com.rabbitmq.client.Channel;
import dev.idempotency.core.MessageAcknowledger;

import org.springframework.amqp.AmqpIOException;
import org.springframework.amqp.rabbit.connection.ChannelProxy;
import org.springframework.amqp.rabbit.support.RabbitExceptionTranslator;

/**
 * Acknowledges one delivery on the channel it came on ({@code basic.ack}, not multiple): the
 * interceptor calls it after the business transaction committed, for a processed message and a
 * duplicate alike. At most once; not thread-safe (one consumer thread holds a delivery).
 */
final class RabbitAcknowledger implements MessageAcknowledger {

	private final Channel channel;

	private final long deliveryTag;

	/** The channel the delivery came on: a caching proxy opens a new one, on which its tag is unknown. */
	private final Channel target;

	private boolean acknowledged;

	private boolean lost;

	RabbitAcknowledger(Channel channel, long deliveryTag) {
		this.channel = channel;
		this.deliveryTag = deliveryTag;
		this.target = targetOf(channel);
	}

	@Override
	public void acknowledge() {
		if (this.acknowledged) {
			return;
		}
		if (!isChannelOpen()) {
			this.lost = true;
			throw new AmqpIOException("The channel of the delivery closed before it was acknowledged; the broker "
					+ "redelivers it", new IOException("channel closed"));
		}
		try {
			this.channel.basicAck(this.deliveryTag, false);
			this.acknowledged = true;
		}
		catch (IOException | RuntimeException ex) {
			// A closed channel: the broker redelivers the message, and the redelivery is a duplicate.
			this.lost = true;
			throw RabbitExceptionTranslator.convertRabbitAccessException(ex);
		}
	}

	/**
	 * Whether the delivery can still be settled here: not settled yet, its acknowledgement did not
	 * fail, and the channel it came on is open. Once it cannot, the broker redelivers it (or has
	 * settled it), and nothing else may be sent for its tag.
	 * @return {@code true} while the delivery is in this consumer's hands
	 */
	boolean isInHand() {
		return !this.acknowledged && !this.lost && isChannelOpen();
	}

	private boolean isChannelOpen() {
		return targetOf(this.channel) == this.target && this.target.isOpen();
	}

	private static Channel targetOf(Channel channel) {
		return (channel instanceof ChannelProxy proxy) ? proxy.getTargetChannel() : channel;
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
		if (!isInHand()) {
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
		if (!isInHand()) {
			throw new AmqpIOException("The delivery is no longer in hand: its channel closed",
					new IOException("channel closed"));
		}
		try {
			this.channel.basicNack(this.deliveryTag, false, false);
			this.acknowledged = true;
		}
		catch (IOException | RuntimeException ex) {
			throw RabbitExceptionTranslator.convertRabbitAccessException(ex);
		}
	}

}
