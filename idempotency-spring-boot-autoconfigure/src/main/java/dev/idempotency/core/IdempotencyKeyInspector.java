package dev.idempotency.core;

import org.jspecify.annotations.Nullable;

/**
 * Looks up and releases single keys of a store, for people and management endpoints ("was order 4711
 * processed?"). Implemented by the stores that can (the JDBC, Redis, Redisson and in-memory
 * stores); the store bean is then also an inspector.
 * <p>
 * Keys are given as the application knows them: a part longer than the store keeps verbatim, or
 * starting with {@value IdempotencyKey#DIGEST_PREFIX}, is digested like a claim digests it
 * ({@link IdempotencyKey#digestedBeyond}), so a digested key is found by its original key.
 *
 * @since 0.2.0
 */
public interface IdempotencyKeyInspector {

	/**
	 * Reads what the store holds for a key. Changes nothing; needs no transaction.
	 * @param key the key as the application knows it
	 * @return the key's record, or {@code null} if the store holds none (never claimed, expired or
	 * purged; a transactional claim whose transaction has not committed is not visible)
	 * @throws IdempotencyStoreException if the store cannot be reached
	 */
	@Nullable KeyRecord inspect(IdempotencyKey key);

	/**
	 * Removes a key so that its next delivery runs the method again, in one atomic step of its own
	 * (committed before this method returns when called outside a transaction). A {@code COMPLETED}
	 * or {@code PARKED} key, or a {@code PROCESSING} key whose lease has ended, is removed; a
	 * {@code PROCESSING} key under a lease that has not ended is refused unless {@code force} is set:
	 * its run may still be working, and a redelivery would then run beside it (the late run's
	 * completion then changes nothing, as after any lost lease). Every call is logged at {@code WARN}
	 * with the key and its outcome, as an audit trail.
	 * @param key the key as the application knows it
	 * @param force whether to remove a key whose run may still be working
	 * @return what happened
	 * @throws IdempotencyStoreException if the store cannot be reached
	 */
	KeyRelease release(IdempotencyKey key, boolean force);

}
