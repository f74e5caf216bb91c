package dev.idempotency.kafka;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.support.FailClosedCircuit;
import dev.idempotency.support.FailClosedCircuits;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Fail-closed for Kafka listeners: an infrastructure failure opens the listener's
 * {@link FailClosedCircuit} and holds the consumer thread in
 * {@link FailClosedCircuit#awaitRecovery} (one wait lasts at most
 * {@code idempotency.fail-closed.max-wait}, far below {@code max.poll.interval.ms}); the caller
 * then seeks the records back, so nothing is counted, recovered or committed. The circuit that
 * this consumer thread opened is closed by the next delivery on the thread that gets through: a
 * success (the delivery-context interceptors) or a failure that is not the infrastructure's (the
 * error handler).
 *
 * @since 0.2.0
 */
final class FailClosedPause {

	/** A consumer thread serves one container, so it opens at most one circuit. */
	private static final ThreadLocal<@Nullable FailClosedCircuit> OPENED_ON_THIS_THREAD = new ThreadLocal<>();

	/** The failure this thread last waited for, so that a rollback after the wait does not wait again. */
	private static final ThreadLocal<@Nullable Throwable> WAITED_FOR = new ThreadLocal<>();

	private final FailClosedCircuits circuits;

	FailClosedPause(FailClosedCircuits circuits) {
		this.circuits = circuits;
	}

	/**
	 * Whether a failure pauses the listener. A key in progress elsewhere does not: the store
	 * answered, and the in-progress back-off applies.
	 * @param failure what the delivery failed with
	 * @return {@code true} for an infrastructure failure
	 */
	boolean pauses(Exception failure) {
		return IdempotentErrorHandler.find(failure, IdempotencyInProgressException.class) == null
				&& this.circuits.isInfrastructure(failure);
	}

	/**
	 * Opens the listener's circuit (the first failure of an outage logs and counts the pause) and
	 * waits for the stores to answer, the longest wait to pass, or the container to stop.
	 * @param failure the infrastructure failure
	 * @param container the container whose consumer thread this is
	 */
	void awaitRecovery(Exception failure, MessageListenerContainer container) {
		FailClosedCircuit circuit = this.circuits.circuit(listenerId(container));
		circuit.open(failure);
		OPENED_ON_THIS_THREAD.set(circuit);
		circuit.awaitRecovery(container::isRunning, () -> {
		});
		WAITED_FOR.set(failure);
	}

	/**
	 * Whether this thread has just waited for {@code failure}: with Kafka transactions, the error
	 * handler waits, then the container rolls back and hands the same failure (wrapped) to the
	 * after-rollback processor, which need not wait again. Forgets the failure.
	 * @param failure the failure the after-rollback processor was given
	 * @return {@code true} if {@code failure} or one of its causes is the one waited for
	 */
	static boolean alreadyWaitedFor(Throwable failure) {
		Throwable waited = WAITED_FOR.get();
		WAITED_FOR.remove();
		for (Throwable candidate = failure; waited != null && candidate != null; candidate = candidate.getCause()) {
			if (candidate == waited) {
				return true;
			}
			if (candidate.getCause() == candidate) {
				break;
			}
		}
		return false;
	}

	/**
	 * A delivery on this consumer thread got through to the infrastructure: closes the circuit the
	 * thread opened, if any (the resume is logged and counted once, by the circuit).
	 */
	static void deliveryGotThrough() {
		WAITED_FOR.remove();
		FailClosedCircuit circuit = OPENED_ON_THIS_THREAD.get();
		if (circuit != null) {
			OPENED_ON_THIS_THREAD.remove();
			circuit.close();
		}
	}

	/**
	 * The id a listener's circuit, log lines and meters are named by: the {@code @KafkaListener}
	 * id, the same for all the consumers of a concurrent container.
	 * @param container the container, or one of a concurrent container's children
	 * @return the listener's id
	 */
	static String listenerId(MessageListenerContainer container) {
		String main = container.getMainListenerId();
		return (main != null) ? main : String.valueOf(container.getListenerId());
	}

}
