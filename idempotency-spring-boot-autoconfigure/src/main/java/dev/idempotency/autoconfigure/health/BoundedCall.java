package dev.idempotency.autoconfigure.health;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Runs one health check at a time on a daemon thread of its own and waits for it at most a timeout,
 * so that a store or database that hangs cannot hold the health endpoint's thread. A check still
 * running when the next health request comes is waited for again rather than started a second time:
 * at most one thread per indicator, however often the endpoint is called. The thread ends after a
 * minute without work, so nothing needs to be shut down.
 *
 * @param <T> what the check returns
 * @since 0.2.0
 */
public final class BoundedCall<T> {

	private final Callable<T> check;

	private final ThreadPoolExecutor executor;

	private final Object monitor = new Object();

	private @Nullable Future<T> inFlight;

	/**
	 * Creates the call; its thread is named after the check.
	 * @param name what is checked, such as {@code store}
	 * @param check the check
	 */
	public BoundedCall(String name, Callable<T> check) {
		this.check = check;
		CustomizableThreadFactory threads = new CustomizableThreadFactory("idempotency-health-" + name + "-");
		threads.setDaemon(true);
		this.executor = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
		this.executor.allowCoreThreadTimeOut(true);
	}

	/**
	 * Runs the check, or joins the one still running, and waits for it.
	 * @param timeout how long to wait
	 * @return what the check returned
	 * @throws TimeoutException if it did not finish in time (it keeps running)
	 * @throws Exception what the check threw
	 */
	public T call(Duration timeout) throws Exception {
		Future<T> future;
		synchronized (this.monitor) {
			future = this.inFlight;
			if (future == null || future.isDone()) {
				FutureTask<T> task = new FutureTask<>(this.check);
				this.executor.execute(task);
				future = task;
				this.inFlight = future;
			}
		}
		try {
			return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof Exception exception) {
				throw exception;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw ex;
		}
	}

	/**
	 * A failed check's root cause as a health detail: its class and message.
	 * @param failure the root cause
	 * @return the class name, a colon and the message
	 */
	public static String describe(Throwable failure) {
		return failure.getClass().getName() + ": " + failure.getMessage();
	}

}
