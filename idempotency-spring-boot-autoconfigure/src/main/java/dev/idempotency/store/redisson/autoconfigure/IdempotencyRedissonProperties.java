package dev.idempotency.store.redisson.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Redisson store ({@code idempotency.store.type=redisson}) and of
 * lock-then-double-check mode ({@code idempotency.redisson.lock.*}).
 *
 * @since 0.2.0
 */
@ConfigurationProperties("idempotency.redisson")
public class IdempotencyRedissonProperties {

	/**
	 * Prefix of the Redisson store's keys; a key is the prefix, the namespace, a colon and the
	 * idempotency key. Applications that share a Redis database and could use the same namespace
	 * need different prefixes.
	 */
	private String keyPrefix = "idempotency:";

	private final Lock lock = new Lock();

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Lock getLock() {
		return this.lock;
	}

	/**
	 * Lock-then-double-check mode: a Redisson lock on each delivery's namespace and key, taken
	 * before its transaction and released after commit or rollback, in front of any store.
	 */
	public static class Lock {

		/**
		 * Whether every {@code @Idempotent} delivery takes a Redisson lock on its keys before its
		 * transaction, so that concurrent duplicates wait on the lock instead of on a database row
		 * lock or an in-progress claim.
		 */
		private boolean enabled;

		/**
		 * How long a delivery waits for a key another delivery holds. Past it the delivery fails with
		 * IdempotencyInProgressException and is retried later without counting an attempt.
		 */
		private Duration waitTime = Duration.ofSeconds(10);

		/**
		 * How long a lock is held at most. Unset: Redisson's watchdog renews it while this process
		 * lives, and it lapses about 30 seconds (the client's lockWatchdogTimeout) after the process
		 * dies. When a lease ends mid-method the next delivery gets the lock and the store decides.
		 */
		private @Nullable Duration leaseTime;

		/**
		 * Prefix of the locks' Redis keys; must differ from the store's key prefix.
		 */
		private String keyPrefix = "idempotency-lock:";

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(Duration waitTime) {
			this.waitTime = waitTime;
		}

		public @Nullable Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(@Nullable Duration leaseTime) {
			this.leaseTime = leaseTime;
		}

		public String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

	}

}
