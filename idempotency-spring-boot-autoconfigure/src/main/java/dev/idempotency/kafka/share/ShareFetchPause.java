package dev.idempotency.kafka.share;

import java.util.concurrent.atomic.AtomicBoolean;
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
 *
 * @since 0.2.0
 */
final class ShareFetchPause {

	private static final Log logger = LogFactory.getLog(ShareFetchPause.class);

	private final ShareKafkaMessageListenerContainer<?, ?> container;

	private final FailClosedCircuit circuit;

	private final BooleanSupplier active;

	private final AtomicBoolean pausing = new AtomicBoolean();

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

}
