package dev.idempotency.redis.stream;

import java.time.Duration;

/**
 * How the stream listeners read, recover and dead-letter; bound from
 * {@code idempotency.redis.stream.*}.
 *
 * @param concurrency consumers per listener when the annotation does not say
 * @param batchSize most entries one read returns (COUNT)
 * @param pollTimeout how long one read blocks waiting for entries (BLOCK)
 * @param minIdle how long an entry stays pending before another consumer may claim it
 * @param claimInterval how often pending entries are measured and claimed
 * @param maxDeliveries deliveries of an entry, the first included, before it is dead-lettered
 * @param deadLetterSuffix appended to a stream's key to name its dead-letter stream
 * @param recoveryBackOff pause after a failed read before the next one
 * @param payloadField the field holding the payload
 * @since 0.1.0
 */
public record RedisStreamSettings(int concurrency, int batchSize, Duration pollTimeout, Duration minIdle,
		Duration claimInterval, int maxDeliveries, String deadLetterSuffix, Duration recoveryBackOff,
		String payloadField) {

	public RedisStreamSettings {
		if (concurrency < 1 || batchSize < 1 || maxDeliveries < 1) {
			throw new IllegalArgumentException("concurrency, batch size and max deliveries must be at least 1");
		}
		if (minIdle.isNegative() || minIdle.isZero() || claimInterval.isNegative() || claimInterval.isZero()) {
			throw new IllegalArgumentException("min-idle and claim-interval must be positive");
		}
	}

}
