package dev.idempotency.support;

import java.time.Duration;

/**
 * How a paused listener waits for the infrastructure.
 *
 * @param probeInterval time between two probes of the store while paused
 * @param maxWait longest time one wait blocks the consumer's thread before it returns to its
 * transport (a Kafka consumer must poll again well within {@code max.poll.interval.ms})
 * @since 0.2.0
 */
public record FailClosedSettings(Duration probeInterval, Duration maxWait) {

	public FailClosedSettings {
		if (probeInterval.isNegative() || probeInterval.isZero()) {
			throw new IllegalArgumentException("probeInterval must be positive");
		}
		if (maxWait.compareTo(probeInterval) < 0) {
			throw new IllegalArgumentException("maxWait must be at least probeInterval");
		}
	}

}
