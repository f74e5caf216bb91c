package dev.idempotency.outbox;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Tells a draining relay that a transaction on this instance committed outbox rows since its last
 * claim, so that it claims them while its earlier batches still wait for their acknowledgements
 * instead of after those batches were acknowledged and marked. Without it, a row committed while a
 * round was on its way waited for that round's acknowledgements, its mark and then a claim of its
 * own: the tail of the commit-to-broker latency under a steady stream of commits.
 * <p>
 * {@link #raise()} runs on the committing thread, after its commit, so a claim that starts after a
 * {@link #take()} that saw the signal sees the committed rows. The relay thread takes the signal
 * right before it claims, and waits with {@link #awaitRaisedOr} for either a commit or the
 * acknowledgements of its oldest batch.
 */
final class CommitSignal {

	private final Object monitor = new Object();

	private boolean raised;

	/** Notes a commit and wakes a relay thread waiting in {@link #awaitRaisedOr}. */
	void raise() {
		synchronized (this.monitor) {
			this.raised = true;
			this.monitor.notifyAll();
		}
	}

	/**
	 * Whether a commit was noted since the last call; clears the note. Called right before a claim,
	 * which then sees every row whose commit was noted.
	 */
	boolean take() {
		synchronized (this.monitor) {
			boolean was = this.raised;
			this.raised = false;
			return was;
		}
	}

	/** Whether a commit was noted since the last {@link #take()}, leaving the note in place. */
	boolean isRaised() {
		synchronized (this.monitor) {
			return this.raised;
		}
	}

	/**
	 * Makes {@link #awaitRaisedOr} return once {@code future} completes (normally or not); called
	 * once per future.
	 * @param future what a relay thread may wait for
	 * @return {@code future}
	 */
	<T> CompletableFuture<T> wakingOnCompletion(CompletableFuture<T> future) {
		future.whenComplete((result, ex) -> {
			synchronized (this.monitor) {
				this.monitor.notifyAll();
			}
		});
		return future;
	}

	/**
	 * Waits until a commit is noted, {@code done} completes (normally or not) or the deadline
	 * ({@link System#nanoTime()}) passes, whichever comes first. Returns early, with the interrupt
	 * flag set, when the thread is interrupted.
	 * @param done a future passed through {@link #wakingOnCompletion}
	 * @param deadline when to stop waiting, as {@link System#nanoTime()}
	 */
	void awaitRaisedOr(CompletableFuture<?> done, long deadline) {
		synchronized (this.monitor) {
			while (!this.raised && !done.isDone()) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return;
				}
				try {
					TimeUnit.NANOSECONDS.timedWait(this.monitor, remaining);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

}
