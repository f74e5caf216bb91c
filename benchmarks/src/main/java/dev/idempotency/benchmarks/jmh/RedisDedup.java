package dev.idempotency.benchmarks.jmh;

/**
 * A Redis-side duplicate check, used by {@link RedisDedupVariant} around the business transaction
 * (which stays in the relational database). Not atomic with the business write: that is the point of
 * comparing these with the transactional variants.
 */
interface RedisDedup {

	/** Claims the key; {@code false} means duplicate (or in progress elsewhere). */
	boolean claim(String key);

	/** Called after the business transaction committed. */
	default void completed(String key) {
	}

	/** Called after the business transaction failed, so that the redelivery may run. */
	void release(String key);

}
