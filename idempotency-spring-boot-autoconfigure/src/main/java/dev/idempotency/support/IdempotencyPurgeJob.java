package dev.idempotency.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import dev.idempotency.core.IdempotencyListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Runs a store's purge at a fixed delay on a daemon thread of its own, from context start to stop.
 * The first run is delayed by a random part of the interval so instances started together do not
 * purge in step. A failed run is logged and retried at the next interval.
 *
 * @since 0.1.0
 */
public class IdempotencyPurgeJob implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(IdempotencyPurgeJob.class);

	private final String storeName;

	private final IntSupplier purge;

	private final Duration interval;

	private final Supplier<List<IdempotencyListener>> listeners;

	private @Nullable ScheduledExecutorService executor;

	/**
	 * Creates a job.
	 * @param storeName the store's name, for metrics and logs
	 * @param purge deletes expired records and returns how many
	 * @param interval delay between the end of one run and the start of the next
	 * @param listeners told the count of each run
	 */
	public IdempotencyPurgeJob(String storeName, IntSupplier purge, Duration interval,
			Supplier<List<IdempotencyListener>> listeners) {
		Assert.isTrue(!interval.isNegative() && !interval.isZero(), "interval must be positive");
		this.storeName = storeName;
		this.purge = purge;
		this.interval = interval;
		this.listeners = listeners;
	}

	/**
	 * Runs one purge now, on the calling thread.
	 * @return how many records were deleted
	 */
	public int runOnce() {
		int deleted = this.purge.getAsInt();
		Listeners.notifyEach(this.listeners.get(), (listener) -> listener.onPurged(this.storeName, deleted), "purge");
		if (deleted > 0) {
			logger.debug("Purged " + deleted + " expired idempotency records from store '" + this.storeName + "'");
		}
		return deleted;
	}

	private void runSafely() {
		try {
			runOnce();
		}
		catch (RuntimeException ex) {
			logger.warn("Purge of store '" + this.storeName + "' failed; retrying in " + this.interval, ex);
		}
	}

	@Override
	public synchronized void start() {
		if (this.executor != null) {
			return;
		}
		ScheduledExecutorService executor = DaemonSchedulers.singleThread("idempotency-purge-" + this.storeName);
		long intervalMillis = this.interval.toMillis();
		long initialDelay = ThreadLocalRandom.current().nextLong(Math.max(1, intervalMillis));
		executor.scheduleWithFixedDelay(this::runSafely, initialDelay, intervalMillis, TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	@Override
	public synchronized void stop() {
		if (this.executor != null) {
			this.executor.shutdownNow();
			this.executor = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
