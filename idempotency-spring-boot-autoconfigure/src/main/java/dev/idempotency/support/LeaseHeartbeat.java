package dev.idempotency.support;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Renews the leases of an invocation's claims every third of the lease while its method runs, so
 * that a slow method keeps its key and a crashed one loses it one lease after its last renewal. A
 * claim the store reports as no longer held is not renewed again and is logged: another delivery
 * may be running the same key, and this run's completion will not count. The renewals run on the
 * periodic sweep of {@link LeaseRenewals}: starting and closing a heartbeat schedules nothing.
 *
 * @since 0.2.0
 */
final class LeaseHeartbeat implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseHeartbeat.class);

	private static final LeaseHeartbeat NONE = new LeaseHeartbeat(null, null, List.of(), List.of(), Duration.ZERO);

	private final @Nullable LeaseRenewals renewals;

	private final @Nullable IdempotencyStore store;

	private final List<IdempotencyKey> keys;

	private final List<ClaimResult> claims;

	private final boolean[] lost;

	private final Duration lease;

	private final long periodNanos;

	/** Read and written by the sweep's thread only. */
	private long dueNanos;

	private volatile boolean closed;

	private LeaseHeartbeat(@Nullable LeaseRenewals renewals, @Nullable IdempotencyStore store,
			List<IdempotencyKey> keys, List<ClaimResult> claims, Duration lease) {
		this.renewals = renewals;
		this.store = store;
		this.keys = keys;
		this.claims = claims;
		this.lost = new boolean[keys.size()];
		this.lease = lease;
		this.periodNanos = lease.dividedBy(3).toNanos();
		this.dueNanos = System.nanoTime() + this.periodNanos;
	}

	/**
	 * Starts renewing the granted claims among {@code claims}.
	 * @param store the leased store
	 * @param keys the invocation's keys
	 * @param claims their claims, in key order
	 * @param lease the lease each renewal grants from now
	 * @return the heartbeat; close it when the method returns
	 */
	static LeaseHeartbeat start(IdempotencyStore store, List<IdempotencyKey> keys, List<ClaimResult> claims,
			Duration lease) {
		return start(LeaseRenewals.shared(), store, keys, claims, lease);
	}

	static LeaseHeartbeat start(LeaseRenewals renewals, IdempotencyStore store, List<IdempotencyKey> keys,
			List<ClaimResult> claims, Duration lease) {
		if (lease.toMillis() / 3 <= 0) {
			return NONE;
		}
		LeaseHeartbeat heartbeat = new LeaseHeartbeat(renewals, store, keys, claims, lease);
		renewals.add(heartbeat);
		return heartbeat;
	}

	/** A heartbeat that renews nothing. */
	static LeaseHeartbeat none() {
		return NONE;
	}

	Duration lease() {
		return this.lease;
	}

	/**
	 * Renews the claims if a third of the lease has passed since the previous renewal; on the
	 * sweep's thread.
	 * @param now {@link System#nanoTime()} of the sweep
	 */
	void renewIfDue(long now) {
		if (now - this.dueNanos < 0) {
			return;
		}
		// At a fixed rate, as a periodic task would; a sweep that fell behind does not renew twice.
		this.dueNanos += this.periodNanos;
		if (now - this.dueNanos >= 0) {
			this.dueNanos = now + this.periodNanos;
		}
		renew();
	}

	private void renew() {
		IdempotencyStore store = this.store;
		for (int i = 0; i < this.keys.size() && store != null && !this.closed; i++) {
			ClaimResult claim = this.claims.get(i);
			if (this.lost[i] || !claim.isClaimed() || claim.token() == null) {
				continue;
			}
			try {
				if (!store.renew(this.keys.get(i), claim, this.lease)) {
					this.lost[i] = true;
					logger.warn("Lease of " + this.keys.get(i) + " in store '" + store.name() + "' could not be "
							+ "renewed: the claim is no longer held (taken over after its lease ended?) or the store "
							+ "cannot renew. Another delivery may run the same key; raise the lease");
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Could not renew the lease of " + this.keys.get(i) + " in store '" + store.name()
						+ "'; trying again in " + this.lease.dividedBy(3), ex);
			}
		}
	}

	@Override
	public void close() {
		this.closed = true;
		LeaseRenewals renewals = this.renewals;
		if (renewals != null) {
			renewals.remove(this);
		}
	}

}
