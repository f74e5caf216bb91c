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
 * @param transactionBatching whether the entries of one read that go to a record-style
 * {@code @Idempotent} method run in one transaction ({@link TransactionBatchingReads}); since 0.2.0
 * @since 0.1.0
 */
public record RedisStreamSettings(int concurrency, int batchSize, Duration pollTimeout, Duration minIdle,
		Duration claimInterval, int maxDeliveries, String deadLetterSuffix, Duration recoveryBackOff,
		String payloadField, boolean transactionBatching) {

	public RedisStreamSettings {
		if (concurrency < 1 || batchSize < 1 || maxDeliveries < 1) {
			throw new IllegalArgumentException("concurrency, batch size and max deliveries must be at least 1");
		}
		if (minIdle.isNegative() || minIdle.isZero() || claimInterval.isNegative() || claimInterval.isZero()) {
			throw new IllegalArgumentException("min-idle and claim-interval must be positive");
		}
	}

	/**
	 * Settings without transaction batching: each entry runs in a transaction of its own.
	 * @param concurrency consumers per listener when the annotation does not say
	 * @param batchSize most entries one read returns (COUNT)
	 * @param pollTimeout how long one read blocks waiting for entries (BLOCK)
	 * @param minIdle how long an entry stays pending before another consumer may claim it
	 * @param claimInterval how often pending entries are measured and claimed
	 * @param maxDeliveries deliveries of an entry, the first included, before it is dead-lettered
	 * @param deadLetterSuffix appended to a stream's key to name its dead-letter stream
	 * @param recoveryBackOff pause after a failed read before the next one
	 * @param payloadField the field holding the payload
	 * @deprecated since 0.2.0, for removal in 0.3.0: use the canonical constructor, with
	 * {@code transactionBatching} {@code false}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public RedisStreamSettings(int concurrency, int batchSize, Duration pollTimeout, Duration minIdle,
			Duration claimInterval, int maxDeliveries, String deadLetterSuffix, Duration recoveryBackOff,
			String payloadField) {
		this(concurrency, batchSize, pollTimeout, minIdle, claimInterval, maxDeliveries, deadLetterSuffix,
				recoveryBackOff, payloadField, false);
	}

}
