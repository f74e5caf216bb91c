package dev.idempotency.observation;

import java.lang.reflect.Method;
import java.util.List;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;
import io.micrometer.observation.Observation;

/**
 * The context of an {@code idempotency.invocation} observation: what is known when the call
 * starts (namespace, store, method) and, once it stops, its keys and outcomes.
 *
 * @since 0.2.0
 */
public class IdempotencyObservationContext extends Observation.Context {

	private final String namespace;

	private final String store;

	private final Method method;

	private List<IdempotencyKey> keys = List.of();

	private List<IdempotencyOutcome> outcomes = List.of();

	/**
	 * Describes one call.
	 * @param namespace the call's namespace
	 * @param store the name of the method's store
	 * @param method the annotated method
	 */
	public IdempotencyObservationContext(String namespace, String store, Method method) {
		this.namespace = namespace;
		this.store = store;
		this.method = method;
	}

	/**
	 * The call's namespace.
	 * @return the namespace
	 */
	public String getNamespace() {
		return this.namespace;
	}

	/**
	 * The name of the store the call claims its keys in.
	 * @return the store's name
	 */
	public String getStore() {
		return this.store;
	}

	/**
	 * The annotated method.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * The call's keys: one for a single message, one per message of a batch; empty until the call
	 * stops, and when no key could be resolved.
	 * @return the keys
	 */
	public List<IdempotencyKey> getKeys() {
		return this.keys;
	}

	/**
	 * Sets the call's keys.
	 * @param keys the keys
	 */
	public void setKeys(List<IdempotencyKey> keys) {
		this.keys = List.copyOf(keys);
	}

	/**
	 * The outcomes, one per key (a single {@link IdempotencyOutcome#REJECTED} when no key could be
	 * resolved); empty until the call stops, and when it ended before it had any.
	 * @return the outcomes
	 */
	public List<IdempotencyOutcome> getOutcomes() {
		return this.outcomes;
	}

	/**
	 * Sets the outcomes.
	 * @param outcomes the outcomes
	 */
	public void setOutcomes(List<IdempotencyOutcome> outcomes) {
		this.outcomes = List.copyOf(outcomes);
	}

}
