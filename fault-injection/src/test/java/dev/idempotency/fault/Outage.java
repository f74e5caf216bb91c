package dev.idempotency.fault;

import java.time.Duration;
import java.util.function.LongSupplier;

import dev.idempotency.testsupport.TcpProxy;

import static org.awaitility.Awaitility.await;

/**
 * One outage of a service, cut at the {@link TcpProxy} the child consumers reach it through
 * (connections refused, open ones reset), then restored; and how long the consumers took to make
 * progress again after the restore, measured on what they write (the ledger), not on what they say.
 */
final class Outage {

	private final String service;

	private final TcpProxy proxy;

	private final LongSupplier progress;

	private long cutAt;

	private long progressAtCut;

	private long progressAtRestore;

	private Duration resumedAfter;

	/**
	 * @param service what is cut, for the report
	 * @param proxy the proxy in front of it
	 * @param progress a count that grows while the consumers work (ledger rows)
	 */
	Outage(String service, TcpProxy proxy, LongSupplier progress) {
		this.service = service;
		this.proxy = proxy;
		this.progress = progress;
	}

	void cut() {
		this.proxy.cut();
		this.cutAt = System.nanoTime();
		this.progressAtCut = this.progress.getAsLong();
	}

	/** Time since the cut. */
	Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.cutAt);
	}

	/** Waits until {@code length} has passed since the cut. */
	void lastUntil(Duration length) {
		long left = length.minus(elapsed()).toMillis();
		if (left > 0) {
			try {
				Thread.sleep(left);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	/**
	 * Restores the service and waits until the consumers make progress again.
	 * @param timeout how long to wait for it
	 * @return the time from the restore to the first progress
	 */
	Duration restoreAndAwaitProgress(Duration timeout) {
		this.progressAtRestore = this.progress.getAsLong();
		this.proxy.restore();
		long restoredAt = System.nanoTime();
		await().atMost(timeout)
			.pollInterval(Duration.ofMillis(100))
			.until(() -> this.progress.getAsLong() > this.progressAtRestore);
		this.resumedAfter = Duration.ofNanos(System.nanoTime() - restoredAt);
		return this.resumedAfter;
	}

	/** Progress made while the service was down (for the database: rows committed after the cut). */
	long progressDuringOutage() {
		return this.progressAtRestore - this.progressAtCut;
	}

	Duration resumedAfter() {
		return this.resumedAfter;
	}

	/** A line for the report. */
	String describe(Duration length) {
		return this.service + " cut for " + length.toSeconds() + " s; progress while down: " + progressDuringOutage()
				+ "; consumption resumed " + ((this.resumedAfter != null) ? this.resumedAfter.toMillis() + " ms" : "never")
				+ " after the restore";
	}

}
