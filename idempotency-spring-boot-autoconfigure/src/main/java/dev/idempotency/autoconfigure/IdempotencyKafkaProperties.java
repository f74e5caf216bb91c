package dev.idempotency.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Kafka adapter.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotency.kafka")
public class IdempotencyKafkaProperties {

	/**
	 * Whether Kafka listener containers bind each record to the delivery context and manual-ack
	 * listeners are acknowledged after commit.
	 */
	private boolean enabled = true;

	private final Retry retry = new Retry();

	private final DeadLetter deadLetter = new DeadLetter();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	/**
	 * Retries of a failing record, in the consumer, before it is dead-lettered.
	 */
	public static class Retry {

		/**
		 * Deliveries of a record, the first included, before it goes to the dead-letter topic.
		 */
		private int maxAttempts = 3;

		/**
		 * Back-off before the second delivery.
		 */
		private Duration initialInterval = Duration.ofSeconds(1);

		/**
		 * Factor by which the back-off grows after each failed delivery.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest back-off between two deliveries; keep it well below max.poll.interval.ms.
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
	 * Dead-letter topics.
	 */
	public static class DeadLetter {

		/**
		 * Suffix appended to a record's topic to name its dead-letter topic (spring-kafka's convention).
		 */
		private String suffix = ".DLT";

		public String getSuffix() {
			return this.suffix;
		}

		public void setSuffix(String suffix) {
			this.suffix = suffix;
		}

	}

}
