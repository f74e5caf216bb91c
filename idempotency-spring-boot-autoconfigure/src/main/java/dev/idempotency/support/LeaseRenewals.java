package dev.idempotency.support;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The leased claims being renewed, and the one periodic sweep that renews those due: a leased
 * invocation joins the set when its method starts and leaves it when the method returns, so that
 * no task is scheduled or cancelled per claim. The sweep runs every sixth of the shortest lease
 * seen so far; a claim due a third of its lease after its previous renewal is renewed by the next
 * sweep, so within half its lease, and a renewal that failed is tried again before the lease ends.
 *
 * @since 0.2.0
 */
final class LeaseRenewals {

	private static final Log logger = LogFactory.getLog(LeaseRenewals.class);

	private static final class SharedHolder {

		static final LeaseRenewals SHARED = new LeaseRenewals(
				DaemonSchedulers.singleThread("idempotency-lease-renewal"));

	}

	private final ScheduledExecutorService scheduler;

	private final Set<LeaseHeartbeat> live = ConcurrentHashMap.newKeySet();

	/** Guarded by {@code this}: the sweep and its period, replaced only by a shorter one. */
	private @Nullable ScheduledFuture<?> sweep;

	private long sweepMillis = Long.MAX_VALUE;

	LeaseRenewals(ScheduledExecutorService scheduler) {
		this.scheduler = scheduler;
	}

	/** The renewals of the invocations of this class loader, on one daemon thread. */
	static LeaseRenewals shared() {
		return SharedHolder.SHARED;
	}

	/**
	 * Adds a heartbeat to the sweep, and makes the sweep frequent enough for its lease.
	 * @param heartbeat the heartbeat of an invocation whose method starts
	 */
	void add(LeaseHeartbeat heartbeat) {
		sweepOften(heartbeat.lease());
		this.live.add(heartbeat);
	}

	/**
	 * Removes a heartbeat: its method returned.
	 * @param heartbeat the heartbeat
	 */
	void remove(LeaseHeartbeat heartbeat) {
		this.live.remove(heartbeat);
	}

	/** The heartbeats being renewed: one per running leased invocation, none left by closed ones. */
	int live() {
		return this.live.size();
	}

	/** The tasks queued on the scheduler: the sweep, whatever the number of live claims. */
	int scheduledTasks() {
		return (this.scheduler instanceof ScheduledThreadPoolExecutor executor) ? executor.getQueue().size() : -1;
	}

	private void sweepOften(Duration lease) {
		long millis = Math.max(1, lease.toMillis() / 6);
		synchronized (this) {
			if (millis >= this.sweepMillis) {
				return;
			}
			ScheduledFuture<?> previous = this.sweep;
			// A shorter lease than any before: a sweep as often as it needs (a bounded number of times,
			// one per shorter lease, not one per claim).
			this.sweep = this.scheduler.scheduleWithFixedDelay(this::sweep, millis, millis, TimeUnit.MILLISECONDS);
			this.sweepMillis = millis;
			if (previous != null) {
				previous.cancel(false);
			}
		}
	}

	private void sweep() {
		long now = System.nanoTime();
		for (LeaseHeartbeat heartbeat : this.live) {
			try {
				heartbeat.renewIfDue(now);
			}
			catch (RuntimeException ex) {
				// The sweep renews every live claim: one failure must not stop the others' renewals.
				logger.warn("Lease renewal failed", ex);
			}
		}
	}

}
