package dev.idempotency.benchmarks.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Sleeping and waiting for a condition, with interruption turned into an unchecked failure. */
public final class Waits {

	private Waits() {
	}

	public static void sleep(long millis) {
		sleep(millis, 0);
	}

	public static void sleep(long millis, int nanos) {
		try {
			Thread.sleep(millis, nanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Polls {@code condition} every 10 ms for up to 60 s. */
	public static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out waiting for " + what);
			}
			sleep(10);
		}
	}

}
