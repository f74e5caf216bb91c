package dev.idempotency.redis.stream;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs each task on a thread of its own and counts the tasks that have not finished, so that a
 * container's stop can wait for its deliveries in progress.
 */
final class CountingExecutor implements Executor {

	private final Executor threads;

	private final AtomicInteger active = new AtomicInteger();

	/**
	 * Creates the executor.
	 * @param threads runs the tasks, one thread each
	 */
	CountingExecutor(Executor threads) {
		this.threads = threads;
	}

	@Override
	public void execute(Runnable task) {
		this.active.incrementAndGet();
		try {
			this.threads.execute(() -> {
				try {
					task.run();
				}
				finally {
					this.active.decrementAndGet();
				}
			});
		}
		catch (RuntimeException ex) {
			this.active.decrementAndGet();
			throw ex;
		}
	}

	/**
	 * The tasks started and not finished.
	 * @return how many
	 */
	int active() {
		return this.active.get();
	}

}
