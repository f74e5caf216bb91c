package dev.idempotency.support;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * The fail-closed state of one listener. An infrastructure failure {@linkplain #open opens} it: the
 * listener stops consuming and its adapter {@linkplain #awaitRecovery waits} with the delivery in
 * hand, probing the stores at a fixed interval; once a probe answers, the adapter retries the
 * delivery, and the first delivery that gets through to the infrastructure {@linkplain #close
 * closes} it. A retry that fails on the infrastructure again keeps it open without a new pause:
 * each outage is logged, counted and told to the {@link DeliveryListener}s once, when it starts and
 * when it ends, however many deliveries it holds up.
 * <p>
 * Thread-safe: the consumers of one listener share its circuit.
 *
 * @since 0.2.0
 */
public final class FailClosedCircuit {

	private static final Log logger = LogFactory.getLog(FailClosedCircuit.class);

	/** How often a waiting thread checks whether it should stop waiting. */
	private static final long SLICE_MILLIS = 100;

	private final String listener;

	private final Runnable probe;

	private final FailClosedSettings settings;

	private final Supplier<? extends List<? extends DeliveryListener>> listeners;

	private final Object monitor = new Object();

	private long openedAt;

	private boolean open;

	private @Nullable Throwable cause;

	/**
	 * Creates the circuit of one listener, closed.
	 * @param listener the listener's id, for logs and meters
	 * @param probe checks the stores; throws when they do not answer
	 * @param settings probe interval and longest wait
	 * @param listeners told when the listener pauses and resumes
	 */
	FailClosedCircuit(String listener, Runnable probe, FailClosedSettings settings,
			Supplier<? extends List<? extends DeliveryListener>> listeners) {
		this.listener = listener;
		this.probe = probe;
		this.settings = settings;
		this.listeners = listeners;
	}

	/**
	 * The listener's id.
	 * @return the id
	 */
	public String listener() {
		return this.listener;
	}

	/**
	 * Whether the listener is paused.
	 * @return {@code true} between an infrastructure failure and the next delivery that got through
	 */
	public boolean isOpen() {
		synchronized (this.monitor) {
			return this.open;
		}
	}

	/**
	 * How long the listener has been paused.
	 * @return the time since it opened, {@link Duration#ZERO} when closed
	 */
	public Duration pausedFor() {
		synchronized (this.monitor) {
			return this.open ? Duration.ofNanos(System.nanoTime() - this.openedAt) : Duration.ZERO;
		}
	}

	/**
	 * The infrastructure failure that paused the listener.
	 * @return the failure, or {@code null} when closed
	 */
	public @Nullable Throwable cause() {
		synchronized (this.monitor) {
			return this.open ? this.cause : null;
		}
	}

	/**
	 * Records an infrastructure failure of a delivery; the first of an outage pauses the listener.
	 * @param failure the failure
	 */
	public void open(Throwable failure) {
		synchronized (this.monitor) {
			if (this.open) {
				if (logger.isDebugEnabled()) {
					logger.debug("Listener '" + this.listener + "' is still paused: " + describe(failure));
				}
				return;
			}
			this.open = true;
			this.openedAt = System.nanoTime();
			this.cause = failure;
		}
		logger.warn("Listener '" + this.listener + "' paused: the infrastructure failed (" + describe(failure)
				+ "). It keeps the delivery in hand, probes the store every " + this.settings.probeInterval()
				+ " and resumes by itself; nothing is dead-lettered meanwhile", failure);
		Listeners.notifyEach(this.listeners.get(), (listener) -> listener.onListenerPaused(this.listener, failure),
				"listener paused");
	}

	/**
	 * Records that a delivery got through to the infrastructure (it succeeded, or failed because of
	 * the message); resumes the listener if it was paused.
	 */
	public void close() {
		close(Long.MAX_VALUE);
	}

	/**
	 * Records that a delivery attempt that started at {@code attemptStartedAt} got through; resumes
	 * the listener only if the attempt started after the listener paused. An attempt already running
	 * when another consumer's delivery opened the circuit may have got through just before the
	 * outage began: it says nothing about the infrastructure now, and closing on it would resume the
	 * listener into the outage and count a second pause.
	 * @param attemptStartedAt {@link System#nanoTime()} when the attempt started
	 */
	public void close(long attemptStartedAt) {
		Duration paused;
		synchronized (this.monitor) {
			if (!this.open || attemptStartedAt - this.openedAt < 0) {
				return;
			}
			this.open = false;
			this.cause = null;
			paused = Duration.ofNanos(System.nanoTime() - this.openedAt);
		}
		logger.info("Listener '" + this.listener + "' resumed after " + paused.toMillis() + " ms paused");
		Listeners.notifyEach(this.listeners.get(), (listener) -> listener.onListenerResumed(this.listener, paused),
				"listener resumed");
	}

	/**
	 * Waits for the infrastructure: sleeps a probe interval, probes, and repeats until a probe
	 * answers, the longest wait has passed, or {@code keepWaiting} says to stop (the container
	 * stops). Returns at once when the circuit is closed.
	 * @param keepWaiting checked between steps; {@code false} ends the wait
	 * @param eachStep run before each probe, for example to keep the deliveries in hand from being
	 * claimed by other consumers; its exceptions are ignored
	 * @return {@code true} if the last probe answered (or the circuit is closed), so the delivery
	 * should be retried now
	 */
	public boolean awaitRecovery(BooleanSupplier keepWaiting, Runnable eachStep) {
		long deadline = System.nanoTime() + this.settings.maxWait().toNanos();
		while (isOpen()) {
			if (!sleep(this.settings.probeInterval(), keepWaiting)) {
				return false;
			}
			try {
				eachStep.run();
			}
			catch (RuntimeException ex) {
				logger.debug("Listener '" + this.listener + "': a step of the wait failed", ex);
			}
			try {
				this.probe.run();
				return true;
			}
			catch (RuntimeException ex) {
				if (logger.isDebugEnabled()) {
					logger.debug("Listener '" + this.listener + "': the store does not answer yet: " + describe(ex));
				}
			}
			if (System.nanoTime() - deadline >= 0) {
				return false;
			}
		}
		return true;
	}

	private static boolean sleep(Duration duration, BooleanSupplier keepWaiting) {
		long end = System.nanoTime() + duration.toNanos();
		try {
			while (keepWaiting.getAsBoolean()) {
				long left = end - System.nanoTime();
				if (left <= 0) {
					return true;
				}
				Thread.sleep(Math.min(SLICE_MILLIS, Math.max(1, left / 1_000_000)));
			}
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static String describe(Throwable failure) {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(failure);
		return root.getClass().getName() + ": " + root.getMessage();
	}

	@Override
	public String toString() {
		return "FailClosedCircuit[" + this.listener + (isOpen() ? ", open]" : ", closed]");
	}

}
