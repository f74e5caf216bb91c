package dev.idempotency.store.redisson;

import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyLock;
import dev.idempotency.core.IdempotencyStoreException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;

import org.springframework.util.Assert;

/**
 * The {@link IdempotencyLock} of lock-then-double-check mode on Redisson: one {@link RLock} per
 * namespace and key, named {@code <prefix><namespace>:<key>}; a batch takes a
 * {@code RedissonMultiLock} over its distinct keys in sorted order, so two batches that share keys
 * never lock them in opposite orders. Works in front of any store.
 * <ul>
 * <li>A delivery whose key is held waits up to the wait time; when it gets the lock, the store's
 * claim decides (usually: a duplicate). Past the wait time it throws
 * {@link IdempotencyInProgressException}, retried without counting an attempt.</li>
 * <li>Without a lease time, Redisson's watchdog renews the lock while this process lives (and lets
 * it lapse about 30 s after the process dies). With one, the lock lapses after it even if the
 * method still runs: the next delivery then gets the lock and the store decides, as without a
 * lock.</li>
 * <li>Redis unreachable: {@link IdempotencyStoreException}, an infrastructure failure.</li>
 * <li>{@link Held#close()} unlocks for the thread that locked (Redisson locks belong to a thread),
 * whichever thread calls it, and never throws: a lock that lapsed or cannot be released is
 * logged and left to its lease.</li>
 * </ul>
 *
 * @since 0.2.0
 */
public class RedissonIdempotencyLock implements IdempotencyLock {

	private static final Log logger = LogFactory.getLog(RedissonIdempotencyLock.class);

	private final RedissonClient redisson;

	private final String keyPrefix;

	private final Duration waitTime;

	private final @Nullable Duration leaseTime;

	/**
	 * Creates a lock.
	 * @param redisson the client
	 * @param keyPrefix prefix of every lock's name; must differ from the store's prefix
	 * @param waitTime how long a delivery waits for a key another delivery holds
	 * @param leaseTime how long a lock is held at most, or {@code null} for Redisson's watchdog
	 * (renewed while the process lives)
	 */
	public RedissonIdempotencyLock(RedissonClient redisson, String keyPrefix, Duration waitTime,
			@Nullable Duration leaseTime) {
		Assert.notNull(redisson, "redisson must not be null");
		Assert.notNull(keyPrefix, "keyPrefix must not be null");
		Assert.isTrue(!waitTime.isNegative(), "waitTime must not be negative");
		Assert.isTrue(leaseTime == null || (!leaseTime.isNegative() && !leaseTime.isZero()),
				"leaseTime must be positive, or null for the watchdog");
		this.redisson = redisson;
		this.keyPrefix = keyPrefix;
		this.waitTime = waitTime;
		this.leaseTime = leaseTime;
	}

	/**
	 * Locks the keys, waiting at most the wait time.
	 * @param lease ignored: the lock's lease is its own setting (or the watchdog)
	 */
	@Override
	public Held acquire(List<IdempotencyKey> keys, Duration lease) {
		Assert.notEmpty(keys, "keys must not be empty");
		RLock lock = lockOf(keys);
		long thread = Thread.currentThread().getId();
		boolean locked;
		try {
			locked = lock.tryLock(this.waitTime.toMillis(), (this.leaseTime != null) ? this.leaseTime.toMillis() : -1,
					TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			// Stopping: nothing ran, the delivery is retried (not the message's fault).
			Thread.currentThread().interrupt();
			throw new IdempotencyInProgressException(keys.get(0), lease);
		}
		catch (RedisException ex) {
			throw new IdempotencyStoreException("Could not lock '" + keys.get(0) + "' in Redis (Redisson)", ex);
		}
		if (!locked) {
			throw new IdempotencyInProgressException(keys.get(0), lease);
		}
		return () -> unlock(lock, thread, keys);
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public @Nullable Duration getLeaseTime() {
		return this.leaseTime;
	}

	/**
	 * The Redis name of the lock of {@code key}.
	 * @param key the idempotency key
	 * @return the lock's name
	 */
	public String lockName(IdempotencyKey key) {
		return RedissonNames.of(this.keyPrefix, key);
	}

	private RLock lockOf(List<IdempotencyKey> keys) {
		if (keys.size() == 1) {
			return this.redisson.getLock(lockName(keys.get(0)));
		}
		TreeSet<String> names = new TreeSet<>();
		keys.forEach((key) -> names.add(lockName(key)));
		if (names.size() == 1) {
			return this.redisson.getLock(names.first());
		}
		return this.redisson.getMultiLock(names.stream().map(this.redisson::getLock).toArray(RLock[]::new));
	}

	private void unlock(RLock lock, long thread, List<IdempotencyKey> keys) {
		try {
			lock.unlockAsync(thread).toCompletableFuture().join();
		}
		catch (RuntimeException ex) {
			// Most often the lease ran out mid-method (and another delivery may hold the lock now):
			// the store decided for both, so there is nothing to undo.
			logger.warn("Could not release the idempotency lock of " + keys.get(0)
					+ ((keys.size() > 1) ? " (and " + (keys.size() - 1) + " more keys)" : "")
					+ "; it lapsed or lapses with its lease: " + ex.getMessage());
		}
	}

}
