package dev.idempotency.rabbit.autoconfigure;

import java.time.Duration;

import dev.idempotency.autoconfigure.RetryProperties;
import dev.idempotency.core.MessageFields;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the RabbitMQ adapter.
 *
 * @since 0.2.0
 */
@ConfigurationProperties("idempotency.rabbit")
public class IdempotencyRabbitProperties {

	/**
	 * Whether the listener containers of @Idempotent @RabbitListener methods are switched to manual
	 * acknowledgement after commit, with in-place retries, dead letters and fail-closed.
	 */
	private boolean enabled = true;

	/**
	 * Header read as the message id when a message has no AMQP message_id property; a message with
	 * neither has no id, and an @Idempotent method without a key expression rejects it.
	 */
	private String messageIdHeader = MessageFields.MESSAGE_ID;

	private final Retry retry = new Retry();

	private final DeadLetter deadLetter = new DeadLetter();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getMessageIdHeader() {
		return this.messageIdHeader;
	}

	public void setMessageIdHeader(String messageIdHeader) {
		this.messageIdHeader = messageIdHeader;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	/**
	 * Retries of a failing message, in place on the consumer's thread (the delivery is held, not
	 * requeued), before it is dead-lettered: 3 attempts, the first included, with a back-off from 1s
	 * doubling up to 10s.
	 */
	public static class Retry extends RetryProperties {

		public Retry() {
			super(3, Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10));
		}

	}

	/**
	 * Dead letters: the adapter publishes them to a queue's dead-letter exchange with their cause in
	 * headers.
	 */
	public static class DeadLetter {

		/**
		 * Dead-letter exchange of the queues whose declaration this application does not hold (a
		 * declared Queue's x-dead-letter-exchange argument wins). Unset, such a queue's dead letters
		 * are rejected to the broker, which dead-letters them without their cause.
		 */
		private @Nullable String exchange;

		/**
		 * Routing key of the dead letters published to idempotency.rabbit.dead-letter.exchange; unset,
		 * a dead letter keeps its own routing key.
		 */
		private @Nullable String routingKey;

		/**
		 * Suffix appended to a queue's name to name its dead-letter queue, which the idempotency
		 * endpoint lists and re-drives.
		 */
		private String queueSuffix = ".dlq";

		/**
		 * Longest wait for the broker's confirm of a dead letter or a re-driven message.
		 */
		private Duration confirmTimeout = Duration.ofSeconds(5);

		public @Nullable String getExchange() {
			return this.exchange;
		}

		public void setExchange(@Nullable String exchange) {
			this.exchange = exchange;
		}

		public @Nullable String getRoutingKey() {
			return this.routingKey;
		}

		public void setRoutingKey(@Nullable String routingKey) {
			this.routingKey = routingKey;
		}

		public String getQueueSuffix() {
			return this.queueSuffix;
		}

		public void setQueueSuffix(String queueSuffix) {
			this.queueSuffix = queueSuffix;
		}

		public Duration getConfirmTimeout() {
			return this.confirmTimeout;
		}

		public void setConfirmTimeout(Duration confirmTimeout) {
			this.confirmTimeout = confirmTimeout;
		}

	}

}
