package dev.idempotency.fault;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The kill points of the child consumer. When armed, the k-th invocation that claims its key
 * (a duplicate never reaches the points) stops at the point, announces it on stdout
 * ({@code @@FAULT POINT <point> key=.. partition=.. offset=..}) and waits: the parent then sends
 * SIGKILL, or (to drop the database connection under an open transaction) releases it with a
 * {@code release} line on stdin.
 * <ul>
 * <li>{@link Point#BEFORE_COMMIT}: inside the {@code @Idempotent} method, after the business writes
 * and the dedup row, before the interceptor commits.</li>
 * <li>{@link Point#AFTER_COMMIT}: in a {@link TransactionSynchronization} registered from inside
 * the method with {@link Ordered#HIGHEST_PRECEDENCE}, whose {@code afterCommit} runs after the
 * database commit and before the interceptor's own synchronization (default order, lowest
 * precedence), which acknowledges a manual-ack listener; with {@code AckMode.RECORD} the container
 * commits the offset only after the listener method returns. Either way the offset is not
 * committed yet, and the suite checks that at the point.</li>
 * <li>{@link Point#BEFORE_CALL}, {@link Point#DURING_CALL}, {@link Point#AFTER_CALL}: the leased
 * consumer's points around its call to the payment provider (see {@link LeasedChargeListener}).</li>
 * </ul>
 * Armed by the system properties {@code fault.kill-point} and {@code fault.kill-at}, or at run time
 * by a line {@code arm <point> <k>} on stdin. End of stdin (the parent died) exits the JVM, so no
 * child outlives its test.
 */
public final class FaultPoints {

	/** Where an invocation can be stopped. */
	public enum Point {

		BEFORE_COMMIT, AFTER_COMMIT,

		/** Leased mode ({@link LeasedChargeListener}): the key is claimed, the provider not called yet. */
		BEFORE_CALL,

		/** Leased mode: the provider holds the call (the parent kills the child meanwhile). */
		DURING_CALL,

		/** Leased mode: the provider answered, the method has not returned (the key is not completed). */
		AFTER_CALL;

		String label() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

		static Point parse(String value) {
			return valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
		}

	}

	private record Arming(Point point, int at) {
	}

	private final AtomicReference<Arming> arming = new AtomicReference<>();

	private final AtomicInteger claimedSinceArmed = new AtomicInteger();

	private final AtomicReference<CountDownLatch> release = new AtomicReference<>(new CountDownLatch(1));

	FaultPoints(String point, int at) {
		if (point != null && !point.isBlank() && !"none".equalsIgnoreCase(point)) {
			arm(Point.parse(point), at);
		}
	}

	void arm(Point point, int at) {
		this.claimedSinceArmed.set(0);
		this.release.set(new CountDownLatch(1));
		this.arming.set(new Arming(point, Math.max(1, at)));
		FaultChild.announce("ARMED " + point.label() + " at=" + at);
	}

	/**
	 * Called inside the {@code @Idempotent} method once its key is claimed, before the business
	 * writes.
	 * @return the point armed for this invocation, or {@code null}
	 */
	Point onClaimed() {
		Arming current = this.arming.get();
		if (current == null || this.claimedSinceArmed.incrementAndGet() != current.at()
				|| !this.arming.compareAndSet(current, null)) {
			return null;
		}
		return current.point();
	}

	/** Called inside the method when {@link #onClaimed()} chose {@link Point#AFTER_COMMIT}. */
	void stopAfterCommit(String where) {
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public int getOrder() {
				return Ordered.HIGHEST_PRECEDENCE;
			}

			@Override
			public void afterCommit() {
				stop(Point.AFTER_COMMIT, where);
			}

			@Override
			public void afterCompletion(int status) {
				if (status != STATUS_COMMITTED) {
					// The transaction that was to stop here rolled back (with transaction batching, another
					// record of its poll failed): stop after the next commit instead of never
					FaultPoints.this.claimedSinceArmed.set(0);
					FaultPoints.this.arming.compareAndSet(null, new Arming(Point.AFTER_COMMIT, 1));
				}
			}

		});
	}

	/** Announces the point and waits until the parent kills this JVM or releases the point. */
	void stop(Point point, String where) {
		CountDownLatch latch = this.release.get();
		FaultChild.announce("POINT " + point.label() + " " + where);
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		FaultChild.announce("RELEASED " + point.label() + " " + where);
	}

	/** Reads commands from the parent until stdin ends; then exits the JVM. */
	void readCommands() {
		Thread reader = new Thread(() -> {
			try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
				String line;
				while ((line = in.readLine()) != null) {
					String[] words = line.trim().split("\\s+");
					switch (words[0]) {
						case "arm" -> arm(Point.parse(words[1]), Integer.parseInt(words[2]));
						case "release" -> this.release.get().countDown();
						case "" -> {
						}
						default -> FaultChild.announce("UNKNOWN-COMMAND " + line);
					}
				}
			}
			catch (IOException | RuntimeException ex) {
				FaultChild.announce("COMMAND-READER-FAILED " + ex);
			}
			// The parent is gone, or it is stopping us: Process.destroy() sends SIGTERM, then closes our
			// stdin. Give a SIGTERM time to start the shutdown (System.exit then just waits for it);
			// otherwise do not linger as an orphan.
			try {
				Thread.sleep(2000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			System.exit(3);
		}, "fault-commands");
		reader.setDaemon(true);
		reader.start();
	}

}
