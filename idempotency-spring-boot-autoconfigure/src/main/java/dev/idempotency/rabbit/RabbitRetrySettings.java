package dev.idempotency.rabbit;

import java.time.Duration;

/**
 * How a failed delivery is retried in place before it is dead-lettered: attempts, the first
 * included, with an exponential back-off.
 *
 * @param maxAttempts attempts of one message, the first included; at least 1
 * @param initialInterval back-off before the second attempt
 * @param multiplier growth of the back-off after each failed attempt; at least 1
 * @param maxInterval longest back-off
 * @since 0.2.0
 */
public record RabbitRetrySettings(int maxAttempts, Duration initialInterval, double multiplier, Duration maxInterval) {

	public RabbitRetrySettings {
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("maxAttempts must be at least 1");
		}
		if (multiplier < 1) {
			throw new IllegalArgumentException("multiplier must be at least 1");
		}
	}

	/**
	 * The back-off after a failed attempt.
	 * @param attempt the attempt that failed, from 1
	 * @return {@code initialInterval * multiplier^(attempt - 1)}, at most {@code maxInterval}
	 */
	public Duration backOffAfter(int attempt) {
		double millis = this.initialInterval.toMillis() * Math.pow(this.multiplier, attempt - 1);
		return (millis >= this.maxInterval.toMillis()) ? this.maxInterval : Duration.ofMillis((long) millis);
	}

}
