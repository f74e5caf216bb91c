package dev.idempotency.filter;

import java.util.ArrayList;
import java.util.List;

import org.springframework.context.SmartLifecycle;

/**
 * Runs each {@link FilterRebuild} on a daemon thread of its own when the application context starts,
 * and stops retrying when it stops.
 *
 * @since 0.2.0
 */
public final class FilterRebuilds implements SmartLifecycle {

	private final List<FilterRebuild> rebuilds;

	private final List<Thread> threads = new ArrayList<>();

	private volatile boolean running;

	/**
	 * Creates the runner.
	 * @param rebuilds the rebuilds to run
	 */
	public FilterRebuilds(List<FilterRebuild> rebuilds) {
		this.rebuilds = List.copyOf(rebuilds);
	}

	@Override
	public synchronized void start() {
		for (FilterRebuild rebuild : this.rebuilds) {
			Thread thread = new Thread(rebuild, "idempotency-filter-rebuild-" + this.threads.size());
			thread.setDaemon(true);
			thread.start();
			this.threads.add(thread);
		}
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		this.rebuilds.forEach(FilterRebuild::stop);
		this.threads.forEach(Thread::interrupt);
		this.threads.clear();
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * The rebuilds.
	 * @return the rebuilds, one per local filter
	 */
	public List<FilterRebuild> rebuilds() {
		return this.rebuilds;
	}

}
