package dev.idempotency.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

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
 * may be running the same key, and this run's completion will not count.
 *
 * @since 0.2.0
 */
final class LeaseHeartbeat implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseHeartbeat.class);

	private static final LeaseHeartbeat NONE = new LeaseHeartbeat(null, List.of(), List.of(), Duration.ZERO);

	private static final class SchedulerHolder {

		static final ScheduledExecutorService SCHEDULER = DaemonSchedulers.singleThread("idempotency-lease-renewal");

	}

	private final @Nullable IdempotencyStore store;

	private final List<IdempotencyKey> keys;

	private final List<ClaimResult> claims;

	private final boolean[] lost;

	private final Duration lease;

	private volatile @Nullable ScheduledFuture<?> task;

	private LeaseHeartbeat(@Nullable IdempotencyStore store, List<IdempotencyKey> keys, List<ClaimResult> claims,
			Duration lease) {
		this.store = store;
		this.keys = keys;
		this.claims = claims;
		this.lost = new boolean[keys.size()];
		this.lease = lease;
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
		long period = lease.toMillis() / 3;
		if (period <= 0) {
			return NONE;
		}
		LeaseHeartbeat heartbeat = new LeaseHeartbeat(store, keys, claims, lease);
		heartbeat.task = SchedulerHolder.SCHEDULER.scheduleAtFixedRate(heartbeat::renew, period, period,
				TimeUnit.MILLISECONDS);
		return heartbeat;
	}

	/** A heartbeat that renews nothing. */
	static LeaseHeartbeat none() {
		return NONE;
	}

	private void renew() {
		IdempotencyStore store = this.store;
		for (int i = 0; i < this.keys.size() && store != null; i++) {
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

	/**
	 * The renewals queued on the shared scheduler: one per running leased invocation, none left by
	 * closed ones.
	 */
	static int queuedRenewals() {
		return (SchedulerHolder.SCHEDULER instanceof ScheduledThreadPoolExecutor scheduler)
				? scheduler.getQueue().size() : -1;
	}

	@Override
	public void close() {
		ScheduledFuture<?> task = this.task;
		if (task != null) {
			task.cancel(false);
		}
	}

}
