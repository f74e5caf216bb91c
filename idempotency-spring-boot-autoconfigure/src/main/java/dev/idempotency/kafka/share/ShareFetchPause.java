package dev.idempotency.kafka.share;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import dev.idempotency.support.FailClosedCircuit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;

/**
 * Fail-closed for one share-group listener. The broker counts a delivery each time a record is
 * acquired, so an outage must not be met with fetching on: every record fetched, failed and
 * released would spend one of its delivery attempts, and the broker archives a record whose
 * attempts are spent. An infrastructure failure therefore opens the listener's circuit and stops
 * its container from another thread: the records already fetched are released without reaching
 * the method, the consumers close, and nothing more is acquired. The pause then probes the stores
 * and starts the container again once they answer; the first delivery that gets through closes the
 * circuit.
 * <p>
 * Stopping is not instant: a consumer that was inside {@code poll} when the stop began still gets
 * the records it asked for, each with one more delivery. A record released by one consumer while
 * another still polls would be acquired again at once, and again by a third, until the broker
 * archives it at its limit. So a release during a pause {@linkplain #awaitNoConsumerPolling waits}
 * until no consumer of the container can poll again: each is closing, in its listener (it goes on
 * with the records in hand, then closes: its container no longer runs), or has left its listener
 * since the stop began.
 *
 * @since 0.2.0
 */
final class ShareFetchPause {

	private static final Log logger = LogFactory.getLog(ShareFetchPause.class);

	private final ShareKafkaMessageListenerContainer<?, ?> container;

	private final FailClosedCircuit circuit;

	private final BooleanSupplier active;

	/**
	 * Longest wait for the other consumers to stop polling before a release: past it, the release
	 * goes ahead (a consumer thread this pause was not told about must not hold up the stop).
	 */
	static final long QUIET_TIMEOUT_MILLIS = 10_000;

	private static final long QUIET_STEP_MILLIS = 5;

	private final AtomicBoolean pausing = new AtomicBoolean();

	/** The container's consumer threads, from their start until they close their consumer. */
	private final Map<Thread, ConsumerThread> consumers = new ConcurrentHashMap<>();

	/** When the first release of this pause began to wait, or 0. */
	private final AtomicLong quietWaitSince = new AtomicLong();

	/**
	 * Creates the pause of one container.
	 * @param container the container
	 * @param circuit its listener's circuit
	 * @param active whether the application still runs (a pause never restarts a container after
	 * the application stopped)
	 */
	ShareFetchPause(ShareKafkaMessageListenerContainer<?, ?> container, FailClosedCircuit circuit,
			BooleanSupplier active) {
		this.container = container;
		this.circuit = circuit;
		this.active = active;
	}

	/**
	 * Whether fetching is paused: the records in hand are released without reaching the method.
	 * @return {@code true} from an outage until the container starts again
	 */
	boolean isPaused() {
		return this.pausing.get();
	}

	/**
	 * The circuit of the listener.
	 * @return the circuit
	 */
	FailClosedCircuit circuit() {
		return this.circuit;
	}

	/**
	 * Opens the circuit and, unless a pause is under way, stops the container and starts it again
	 * once the stores answer. Returns at once (called on a consumer thread, which the stop waits for).
	 * @param failure the infrastructure failure
	 */
	void pause(Throwable failure) {
		this.circuit.open(failure);
		if (!this.pausing.compareAndSet(false, true)) {
			return;
		}
		Thread thread = new Thread(this::stopWaitAndRestart, "idempotency-share-pause-" + listenerId());
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * A consumer thread of the container started: it polls until the container stops.
	 * @param thread the consumer thread
	 */
	void consumerStarted(Thread thread) {
		this.consumers.put(thread, new ConsumerThread());
	}

	/**
	 * A consumer thread of the container is closing its consumer: it polls no more.
	 * @param thread the consumer thread
	 */
	void consumerStopping(Thread thread) {
		this.consumers.remove(thread);
	}

	/**
	 * The current consumer thread enters its listener with a record: it does not poll until it
	 * {@linkplain #leftListener() leaves}.
	 */
	void enteredListener() {
		ConsumerThread consumer = this.consumers.get(Thread.currentThread());
		if (consumer != null) {
			consumer.inListener = true;
		}
	}

	/**
	 * The current consumer thread leaves its listener. Once its container no longer runs, it goes on
	 * with the records in hand and closes: it will not poll again before the container starts again.
	 */
	void leftListener() {
		ConsumerThread consumer = this.consumers.get(Thread.currentThread());
		if (consumer != null) {
			consumer.inListener = false;
			if (!this.container.isRunning()) {
				consumer.done = true;
			}
		}
	}

	/**
	 * Waits, on a consumer thread in its listener about to release a record during this pause,
	 * until the container is stopping and no other consumer thread of it can poll again: each is
	 * closing, in its listener, or has left it since the stop began. Waits at most
	 * {@link #QUIET_TIMEOUT_MILLIS} per pause.
	 * @param keepWaiting whether the application still runs
	 */
	void awaitNoConsumerPolling(BooleanSupplier keepWaiting) {
		this.quietWaitSince.compareAndSet(0, System.nanoTime());
		long deadline = this.quietWaitSince.get() + TimeUnit.MILLISECONDS.toNanos(QUIET_TIMEOUT_MILLIS);
		while (this.container.isRunning() || anyMayPoll()) {
			if (!keepWaiting.getAsBoolean()) {
				return;
			}
			if (System.nanoTime() - deadline >= 0) {
				logger.warn("Share listener '" + listenerId() + "': consumers still polling "
						+ QUIET_TIMEOUT_MILLIS + " ms into a pause; releasing the records in hand anyway");
				return;
			}
			try {
				Thread.sleep(QUIET_STEP_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private boolean anyMayPoll() {
		for (ConsumerThread consumer : this.consumers.values()) {
			if (!consumer.inListener && !consumer.done) {
				return true;
			}
		}
		return false;
	}

	/**
	 * A delivery got through to the store: closes the circuit if it was open.
	 */
	void gotThrough() {
		this.circuit.close();
	}

	private void stopWaitAndRestart() {
		try {
			this.container.stop();
			logger.info("Share listener '" + listenerId() + "' stopped fetching until the store answers");
			while (this.active.getAsBoolean()) {
				if (this.circuit.awaitRecovery(this.active, () -> {
				})) {
					break;
				}
			}
			if (this.active.getAsBoolean()) {
				this.consumers.values().forEach((consumer) -> consumer.done = false);
				this.quietWaitSince.set(0);
				this.pausing.set(false);
				this.container.start();
				logger.info("Share listener '" + listenerId() + "' fetches again: the store answered");
			}
		}
		catch (RuntimeException ex) {
			logger.error("Share listener '" + listenerId() + "' could not pause or resume", ex);
		}
		finally {
			this.pausing.set(false);
		}
	}

	private String listenerId() {
		return String.valueOf(this.container.getListenerId());
	}

	/** What the pause knows of one consumer thread. */
	private static final class ConsumerThread {

		/** In its listener with a record: not polling. */
		volatile boolean inListener;

		/** Left its listener while its container was stopping: will not poll again. */
		volatile boolean done;

	}

}
