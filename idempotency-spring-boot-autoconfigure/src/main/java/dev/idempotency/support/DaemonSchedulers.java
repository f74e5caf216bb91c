package dev.idempotency.support;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The single background threads of the starter's periodic jobs (purge, outbox relay, stream
 * recovery): daemon threads, so that a job never keeps a JVM alive, named for thread dumps.
 *
 * @since 0.2.0
 */
public final class DaemonSchedulers {

	private DaemonSchedulers() {
	}

	/**
	 * Creates a scheduler with one daemon thread. A cancelled task leaves its queue at once: by
	 * default a cancelled task stays queued, with everything it references, until its delay has
	 * passed.
	 * @param threadName the thread's name
	 * @return the scheduler; shut it down when the job stops
	 */
	public static ScheduledExecutorService singleThread(String threadName) {
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, threadName);
			thread.setDaemon(true);
			return thread;
		});
		scheduler.setRemoveOnCancelPolicy(true);
		return scheduler;
	}

}
