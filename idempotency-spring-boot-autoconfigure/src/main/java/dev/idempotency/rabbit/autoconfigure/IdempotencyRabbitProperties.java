package dev.idempotency.rabbit.autoconfigure;

import java.time.Duration;

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
	 * requeued), before it is dead-lettered.
	 */
	public static class Retry {

		/**
		 * Attempts of a message, the first included, before it goes to the dead-letter exchange; a
		 * quorum queue's earlier deliveries (x-delivery-count) count against them.
		 */
		private int maxAttempts = 3;

		/**
		 * Back-off before the second attempt.
		 */
		private Duration initialInterval = Duration.ofSeconds(1);

		/**
		 * Factor by which the back-off grows after each failed attempt.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest back-off between two attempts.
		 */
		private Duration maxInterval = Duration.ofSeconds(10);

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getInitialInterval() {
			return this.initialInterval;
		}

		public void setInitialInterval(Duration initialInterval) {
			this.initialInterval = initialInterval;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxInterval() {
			return this.maxInterval;
		}

		public void setMaxInterval(Duration maxInterval) {
			this.maxInterval = maxInterval;
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
