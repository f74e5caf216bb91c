package dev.idempotency.support;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.UnfinishedClaim;
import dev.idempotency.core.UnfinishedClaims;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Scans a leased store for claims whose lease ended without completion and settles each with the
 * application's {@link IdempotencyReconciler}: completed, released for the next delivery, or parked
 * for a person. Each scan takes over at most {@code batchSize} claims at a time (the store hands
 * each claim to one instance only) and at most {@value #MAX_BATCHES_PER_RUN} batches per run, so
 * one run stays bounded however many claims a crash left behind.
 *
 * @since 0.2.0
 */
public class LeaseReconciliationJob implements SmartLifecycle {

	/** Batches one run takes over at most; the rest waits for the next run. */
	static final int MAX_BATCHES_PER_RUN = 10;

	private static final Log logger = LogFactory.getLog(LeaseReconciliationJob.class);

	private final String storeName;

	private final UnfinishedClaims claims;

	private final IdempotencyReconciler reconciler;

	private final Settings settings;

	private final Supplier<List<IdempotencyListener>> listeners;

	private final FixedDelaySchedule schedule;

	/**
	 * Creates a job.
	 * @param storeName the store's name, for metrics and logs
	 * @param claims the store's unfinished claims
	 * @param reconciler decides each claim
	 * @param settings how often and how much
	 * @param listeners told each verdict and scan
	 */
	public LeaseReconciliationJob(String storeName, UnfinishedClaims claims, IdempotencyReconciler reconciler,
			Settings settings, Supplier<List<IdempotencyListener>> listeners) {
		this.storeName = storeName;
		this.claims = claims;
		this.reconciler = reconciler;
		this.settings = settings;
		this.listeners = listeners;
		this.schedule = new FixedDelaySchedule("idempotency-reconciler-" + storeName, settings.interval(),
				this::runSafely);
	}

	/**
	 * Runs one scan now, on the calling thread.
	 * @return how many claims were taken over
	 */
	public int runOnce() {
		int taken = 0;
		for (int batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
			List<UnfinishedClaim> held = this.claims.takeOver(this.settings.batchSize(), this.settings.hold(),
					this.settings.namespaces());
			held.forEach(this::reconcile);
			taken += held.size();
			if (held.size() < this.settings.batchSize()) {
				break;
			}
		}
		Instant oldest = this.claims.oldestUnfinished(this.settings.namespaces());
		int scanned = taken;
		Listeners.notifyEach(this.listeners.get(),
				(listener) -> listener.onReconciliationScan(this.storeName, scanned, oldest), "reconciliation");
		return taken;
	}

	/**
	 * How the job runs.
	 * @return the job's settings
	 */
	public Settings getSettings() {
		return this.settings;
	}

	private void reconcile(UnfinishedClaim claim) {
		IdempotencyReconciler.Verdict verdict = null;
		boolean settled = false;
		try {
			verdict = this.reconciler.reconcile(claim);
			Assert.state(verdict != null, "IdempotencyReconciler returned no verdict");
			settled = this.claims.settle(claim, verdict, this.settings.retention());
			if (!settled) {
				logger.warn("Verdict " + verdict + " for " + claim.key() + " was not applied: the reconciler's hold "
						+ "ended first (raise idempotency.reconciler.hold); the claim is offered again");
			}
			else if (verdict == IdempotencyReconciler.Verdict.MANUAL) {
				logger.warn(claim.key() + " is parked for manual handling after " + claim.attempts()
						+ " attempt(s); its deliveries are acknowledged and skipped until it is resolved");
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not reconcile " + claim.key() + "; it is offered again once the reconciler's hold ends",
					ex);
		}
		IdempotencyReconciler.Verdict decided = verdict;
		boolean applied = settled;
		Listeners.notifyEach(this.listeners.get(),
				(listener) -> listener.onReconciled(this.storeName, claim, decided, applied), "reconciliation");
	}

	private void runSafely() {
		try {
			runOnce();
		}
		catch (RuntimeException ex) {
			logger.warn("Reconciliation of store '" + this.storeName + "' failed; retrying in "
					+ this.settings.interval(), ex);
		}
	}

	@Override
	public void start() {
		this.schedule.start();
	}

	@Override
	public void stop() {
		this.schedule.stop();
	}

	@Override
	public boolean isRunning() {
		return this.schedule.isRunning();
	}

	/**
	 * How the job runs.
	 *
	 * @param interval delay between the end of one scan and the start of the next
	 * @param batchSize claims taken over at a time
	 * @param hold how long the reconciler holds a claim it is deciding
	 * @param retention how long a key reconciled as completed is remembered
	 * @param namespaces the namespaces whose claims the job scans; empty for every namespace of the
	 * store
	 */
	public record Settings(Duration interval, int batchSize, Duration hold, Duration retention,
			List<String> namespaces) {

		public Settings {
			Assert.isTrue(!interval.isNegative() && !interval.isZero(), "interval must be positive");
			Assert.isTrue(batchSize > 0, "batchSize must be positive");
			Assert.isTrue(!hold.isNegative() && !hold.isZero(), "hold must be positive");
			Assert.isTrue(!retention.isNegative() && !retention.isZero(), "retention must be positive");
			Assert.notNull(namespaces, "namespaces must not be null");
			Assert.noNullElements(namespaces, "namespaces must not contain null");
			Assert.isTrue(namespaces.stream().noneMatch(String::isBlank), "namespaces must not be blank");
			namespaces = List.copyOf(namespaces);
		}

		/**
		 * Settings that scan every namespace of the store.
		 * @param interval delay between the end of one scan and the start of the next
		 * @param batchSize claims taken over at a time
		 * @param hold how long the reconciler holds a claim it is deciding
		 * @param retention how long a key reconciled as completed is remembered
		 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #Settings(Duration, int, Duration, Duration,
		 * List)} with {@code List.of()}
		 */
		@Deprecated(since = "0.2.0", forRemoval = true)
		public Settings(Duration interval, int batchSize, Duration hold, Duration retention) {
			this(interval, batchSize, hold, retention, List.of());
		}

	}

}
