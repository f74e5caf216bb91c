package dev.idempotency.core;

import java.time.Duration;
import java.util.List;

/**
 * A lock taken on a delivery's keys before its transaction opens and released after it committed
 * or rolled back (lock-then-double-check): concurrent duplicates wait on the lock instead of on a
 * database row lock, and the store's claim under the lock is the second check. The lock is an
 * optimisation, never the judge: when it is lost (its lease expired mid-method), the store still
 * decides, as without a lock.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface IdempotencyLock {

	/**
	 * Locks the keys of one delivery.
	 * @param keys the keys, in the order the delivery has them
	 * @param lease the method's lease, a hint for how long the work may take
	 * @return the held lock, released by {@link Held#close()}
	 * @throws IdempotencyInProgressException if another delivery holds a key past the wait time, so
	 * the delivery is retried later without counting an attempt
	 * @throws IdempotencyStoreException if the lock's service cannot be reached
	 */
	Held acquire(List<IdempotencyKey> keys, Duration lease);

	/** A held lock. */
	@FunctionalInterface
	interface Held extends AutoCloseable {

		/** Releases the lock; never throws (a release failure only lets the lease run out). */
		@Override
		void close();

	}

}
