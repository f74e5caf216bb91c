package dev.idempotency.filter;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.CompletedKeySource;
import dev.idempotency.core.DuplicateFilterListener;
import dev.idempotency.support.Listeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Fills a local filter with the store's completed keys of the last {@code window}, page by page,
 * on the thread that runs it (the auto-configuration starts it on a daemon thread at start-up). The
 * filter answers {@code UNKNOWN} until the rebuild finished and learns every commit meanwhile. A
 * failed rebuild (the database is down) is retried after {@code retryInterval}; the filter stays
 * {@code UNKNOWN}, which costs speed only.
 *
 * @since 0.2.0
 */
public final class FilterRebuild implements Runnable {

	private static final Log logger = LogFactory.getLog(FilterRebuild.class);

	private final RebuildableFilter filter;

	private final CompletedKeySource source;

	private final Duration window;

	private final int pageSize;

	private final Duration retryInterval;

	private final Clock clock;

	private final Supplier<? extends List<? extends DuplicateFilterListener>> listeners;

	private volatile boolean stopped;

	/**
	 * Creates a rebuild; {@link RebuildableFilter#rebuildStarted()} is called at once.
	 * @param filter the filter to fill
	 * @param source the store's completed keys
	 * @param window how far back to read
	 * @param pageSize keys per query
	 * @param retryInterval the wait before retrying a failed rebuild
	 * @param clock the clock the window ends at
	 * @param listeners told the rebuild's size and duration
	 */
	public FilterRebuild(RebuildableFilter filter, CompletedKeySource source,
			Duration window, int pageSize, Duration retryInterval, Clock clock,
			Supplier<? extends List<? extends DuplicateFilterListener>> listeners) {
		this.filter = filter;
		this.source = source;
		this.window = window;
		this.pageSize = pageSize;
		this.retryInterval = retryInterval;
		this.clock = clock;
		this.listeners = listeners;
		filter.rebuildStarted();
	}

	@Override
	public void run() {
		while (!this.stopped) {
			long started = System.nanoTime();
			try {
				long keys = this.source.forEachCompletedSince(this.clock.instant().minus(this.window), this.pageSize,
						this.filter::learn);
				Duration took = Duration.ofNanos(System.nanoTime() - started);
				this.filter.rebuildFinished();
				logger.info("Duplicate filter '" + this.filter.name() + "' rebuilt from the store: " + keys
						+ " keys of the last " + this.window + " in " + took.toMillis() + " ms");
				Listeners.notifyEach(this.listeners.get(),
						(listener) -> listener.onFilterRebuilt(this.filter.name(), keys, took), "filter rebuilt");
				return;
			}
			catch (RuntimeException ex) {
				logger.warn("Duplicate filter '" + this.filter.name() + "' could not be rebuilt from the store; "
						+ "it passes every key on until a retry in " + this.retryInterval + " succeeds", ex);
			}
			try {
				Thread.sleep(this.retryInterval.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/** Stops retrying; a running page finishes. */
	public void stop() {
		this.stopped = true;
	}

}
