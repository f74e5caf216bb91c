package dev.idempotency.support;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Runs a background job's task on a daemon thread of its own with a fixed delay between runs, the
 * first after a random part of the interval, so that instances started together spread their runs.
 * The lifecycle half of the starter's background jobs (purge, reconciliation).
 */
final class FixedDelaySchedule {

	private final String threadName;

	private final Duration interval;

	private final Runnable task;

	private @Nullable ScheduledExecutorService executor;

	FixedDelaySchedule(String threadName, Duration interval, Runnable task) {
		Assert.isTrue(!interval.isNegative() && !interval.isZero(), "interval must be positive");
		this.threadName = threadName;
		this.interval = interval;
		this.task = task;
	}

	synchronized void start() {
		if (this.executor != null) {
			return;
		}
		ScheduledExecutorService executor = DaemonSchedulers.singleThread(this.threadName);
		long intervalMillis = this.interval.toMillis();
		long initialDelay = ThreadLocalRandom.current().nextLong(Math.max(1, intervalMillis));
		executor.scheduleWithFixedDelay(this.task, initialDelay, intervalMillis, TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	synchronized void stop() {
		if (this.executor != null) {
			this.executor.shutdownNow();
			this.executor = null;
		}
	}

	synchronized boolean isRunning() {
		return this.executor != null;
	}

}
