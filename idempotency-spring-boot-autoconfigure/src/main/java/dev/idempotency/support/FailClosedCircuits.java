package dev.idempotency.support;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.FailureKind;

/**
 * Fail-closed for the application's listeners: the {@link FailureClassifier} every adapter asks,
 * and one {@link FailClosedCircuit} per listener, created when first asked for. The probe checks
 * the application's dedup stores ({@code IdempotencyStore#probe}). The circuits are also what a
 * health indicator reads. Thread-safe.
 *
 * @since 0.2.0
 */
public final class FailClosedCircuits {

	private final FailureClassifier classifier;

	private final Runnable probe;

	private final FailClosedSettings settings;

	private final Supplier<? extends List<? extends DeliveryListener>> listeners;

	private final Map<String, FailClosedCircuit> circuits = new ConcurrentHashMap<>();

	/**
	 * Creates the circuits.
	 * @param classifier decides whose fault a failure was
	 * @param probe checks the stores; throws when one does not answer
	 * @param settings probe interval and longest wait
	 * @param listeners told when a listener pauses and resumes
	 */
	public FailClosedCircuits(FailureClassifier classifier, Runnable probe, FailClosedSettings settings,
			Supplier<? extends List<? extends DeliveryListener>> listeners) {
		this.classifier = classifier;
		this.probe = probe;
		this.settings = settings;
		this.listeners = listeners;
	}

	/**
	 * Whether a failure is the infrastructure's, so that the listener pauses instead of counting an
	 * attempt.
	 * @param failure what the delivery failed with
	 * @return {@code true} for an infrastructure failure
	 */
	public boolean isInfrastructure(Throwable failure) {
		return this.classifier.classify(failure) == FailureKind.INFRASTRUCTURE;
	}

	/**
	 * The classifier the adapters share.
	 * @return the classifier
	 */
	public FailureClassifier classifier() {
		return this.classifier;
	}

	/**
	 * The circuit of a listener.
	 * @param listener the listener's id
	 * @return its circuit, created closed on first use
	 */
	public FailClosedCircuit circuit(String listener) {
		return this.circuits.computeIfAbsent(listener,
				(id) -> new FailClosedCircuit(id, this.probe, this.settings, this.listeners));
	}

	/**
	 * The circuits created so far.
	 * @return the circuits, by listener id
	 */
	public Map<String, FailClosedCircuit> circuits() {
		return Map.copyOf(this.circuits);
	}

	/**
	 * The settings the circuits wait with.
	 * @return the settings
	 */
	public FailClosedSettings settings() {
		return this.settings;
	}

}
