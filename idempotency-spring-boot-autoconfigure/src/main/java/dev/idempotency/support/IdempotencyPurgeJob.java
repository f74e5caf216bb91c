package dev.idempotency.support;

import java.time.Duration;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import dev.idempotency.core.IdempotencyListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

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

	private final FixedDelaySchedule schedule;

	/**
	 * Creates a job.
	 * @param storeName the store's name, for metrics and logs
	 * @param purge deletes expired records and returns how many
	 * @param interval delay between the end of one run and the start of the next
	 * @param listeners told the count of each run
	 */
	public IdempotencyPurgeJob(String storeName, IntSupplier purge, Duration interval,
			Supplier<List<IdempotencyListener>> listeners) {
		this.storeName = storeName;
		this.purge = purge;
		this.interval = interval;
		this.listeners = listeners;
		this.schedule = new FixedDelaySchedule("idempotency-purge-" + storeName, interval, this::runSafely);
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

}
