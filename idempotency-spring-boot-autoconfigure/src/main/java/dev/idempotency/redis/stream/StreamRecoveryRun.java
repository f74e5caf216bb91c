package dev.idempotency.redis.stream;

import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One run of a container's recovery task, every claim interval: subscribes again the consumers
 * whose subscription ended, reports the healthy subscriptions and the pending entries, and claims
 * idle entries. Failures are logged as loudly as they deserve and never end the schedule.
 */
final class StreamRecoveryRun implements Runnable {

	// The container's category, as before the split: logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private final StreamBinding binding;

	private final RedisStreamSettings settings;

	private final StreamConsumers consumers;

	private final PendingEntryRecovery pending;

	private final StreamFailClosed failClosed;

	private final Runnable resubscribeEnded;

	private final BooleanSupplier running;

	/**
	 * Creates the recovery run of one container.
	 * @param binding the stream and group
	 * @param settings the claim interval, for the log
	 * @param consumers the container's consumers
	 * @param pending measures and claims pending entries
	 * @param failClosed whether the listener is paused
	 * @param resubscribeEnded subscribes again ended subscriptions, under the container's lock
	 * @param running whether the container runs
	 */
	StreamRecoveryRun(StreamBinding binding, RedisStreamSettings settings, StreamConsumers consumers,
			PendingEntryRecovery pending, StreamFailClosed failClosed, Runnable resubscribeEnded,
			BooleanSupplier running) {
		this.binding = binding;
		this.settings = settings;
		this.consumers = consumers;
		this.pending = pending;
		this.failClosed = failClosed;
		this.resubscribeEnded = resubscribeEnded;
		this.running = running;
	}

	@Override
	public void run() {
		if (!this.running.getAsBoolean()) {
			return;
		}
		try {
			this.resubscribeEnded.run();
			this.consumers.report();
			this.pending.measurePending();
			// Not while a consumer still reads its own pending entries: a claim would take the same
			// entries (idle since the previous incarnation died), deliver them a second time on this
			// thread, and count a delivery that never failed. Nor while the listener is paused: its
			// consumers hold their entries, and a claim would only count deliveries.
			if (this.consumers.allReadOwnPending() && !this.failClosed.isOpen()) {
				this.pending.claimIdleEntries(this.consumers.claimer());
			}
		}
		catch (RuntimeException ex) {
			String stream = this.binding.stream();
			if (ConsumerGroups.isMissingGroup(ex)) {
				// Not created yet (start-up) or lost: the consumers' reads create or recreate it.
				logger.debug("Recovery of stream '" + stream + "' skipped: its group does not exist (yet)");
			}
			else if (this.consumers.anyFailing() || this.failClosed.isOpen()) {
				logger.debug("Recovery of stream '" + stream + "' failed while its consumers cannot read", ex);
			}
			else {
				logger.warn("Recovery of pending entries of stream '" + stream + "' failed; retrying in "
						+ this.settings.claimInterval(), ex);
			}
		}
		catch (Error ex) {
			logger.error("Recovery of stream '" + this.binding.stream() + "' failed", ex);
		}
	}

}
