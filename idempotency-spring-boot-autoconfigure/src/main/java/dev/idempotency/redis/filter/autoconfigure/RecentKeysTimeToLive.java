package dev.idempotency.redis.filter.autoconfigure;

import java.time.Duration;

import dev.idempotency.autoconfigure.RetryProperties;

/**
 * The default time to live of a recently completed key: the longest a duplicate can still arrive
 * through the transport's retries (the Kafka retry budget: the sum of the back-offs between
 * {@code max-attempts} attempts) plus a margin for redeliveries after a crash or a rebalance.
 */
public final class RecentKeysTimeToLive {

	private RecentKeysTimeToLive() {
	}

	public static Duration derive(RetryProperties retry, Duration margin) {
		double interval = retry.getInitialInterval().toMillis();
		long budget = 0;
		for (int attempt = 1; attempt < retry.getMaxAttempts(); attempt++) {
			budget += (long) Math.min(interval, retry.getMaxInterval().toMillis());
			interval *= retry.getMultiplier();
		}
		return Duration.ofMillis(budget).plus(margin);
	}

}
