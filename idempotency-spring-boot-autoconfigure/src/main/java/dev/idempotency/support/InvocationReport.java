package dev.idempotency.support;

import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.InvocationObserver;
import dev.idempotency.core.ObservedInvocation;
import org.jspecify.annotations.Nullable;

/**
 * How one call ended, told to the {@link IdempotencyListener}s and to the call's observation, if
 * one was started: the outcome of each key from {@link #outcomes}, once the transaction has
 * completed, and a key that could not be resolved from {@link #rejected}, as it is thrown. The
 * observation is stopped there too, or by {@link #returned} when the call ended without reporting.
 * Not thread-safe: one instance per call.
 *
 * @since 0.2.0
 */
final class InvocationReport {

	private final Supplier<List<IdempotencyListener>> listeners;

	private final String namespace;

	private final String storeName;

	private final long started;

	private final boolean tellsFailures;

	private ObservedInvocation observed = ObservedInvocation.NONE;

	private boolean reported;

	private boolean reportsLater;

	/**
	 * Prepares the report of one call.
	 * @param listeners told the outcomes
	 * @param namespace the namespace of the call's keys
	 * @param storeName the name of the store the keys are claimed in
	 * @param started {@link System#nanoTime()} when the call was intercepted
	 * @param tellsFailures whether the outcomes of a call that failed are told; not for a
	 * {@link TransactionBatch}, whose messages then run again one by one and are told then
	 */
	InvocationReport(Supplier<List<IdempotencyListener>> listeners, String namespace, String storeName,
			long started, boolean tellsFailures) {
		this.listeners = listeners;
		this.namespace = namespace;
		this.storeName = storeName;
		this.started = started;
		this.tellsFailures = tellsFailures;
	}

	/**
	 * Starts observing the call.
	 * @param observer the interceptor's observer
	 * @param method the called method
	 * @return the started observation; {@link ObservedInvocation#NONE} when nothing observes
	 */
	ObservedInvocation observe(InvocationObserver observer, Method method) {
		this.observed = observer.start(this.namespace, this.storeName, method);
		return this.observed;
	}

	/**
	 * The outcomes are reported when a transaction the call joined completes, after the call has
	 * returned.
	 */
	void reportsLater() {
		this.reportsLater = true;
	}

	/**
	 * The intercepted call has returned or thrown: stops the observation unless the outcomes were
	 * reported (which stopped it) or will be, at the completion of a joined transaction.
	 * @param keys the call's keys; empty when none were resolved
	 * @param failure the exception the call threw, or {@code null}
	 */
	void returned(List<IdempotencyKey> keys, @Nullable Throwable failure) {
		if (!this.reported && !this.reportsLater) {
			this.observed.stop(keys, List.of(), failure);
		}
	}

	/**
	 * Tells the listeners the outcome of each key, once the transaction has completed; a batch's
	 * time is shared out among its messages.
	 * @param claims the call's keys and their outcomes
	 * @param failure the exception the call ended with, or {@code null}
	 */
	void outcomes(InvocationClaims claims, @Nullable Throwable failure) {
		this.reported = true;
		int count = claims.size();
		long nanos = (System.nanoTime() - this.started) / count;
		for (int i = 0; i < count && (failure == null || this.tellsFailures); i++) {
			publish(claims.key(i), claims.reported(i), nanos, failure);
		}
		if (this.observed != ObservedInvocation.NONE) {
			this.observed.stop(claims.keys(), claims.reported(), failure);
		}
	}

	/**
	 * Tells the listeners that a message was refused because its key could not be resolved.
	 * @param rejection the key's failure
	 * @return {@code rejection}, to be thrown
	 */
	InvalidIdempotencyKeyException rejected(InvalidIdempotencyKeyException rejection) {
		this.reported = true;
		publish(null, IdempotencyOutcome.REJECTED, System.nanoTime() - this.started, rejection);
		this.observed.stop(List.of(), List.of(IdempotencyOutcome.REJECTED), rejection);
		return rejection;
	}

	private void publish(@Nullable IdempotencyKey key, IdempotencyOutcome outcome, long nanos,
			@Nullable Throwable failure) {
		IdempotencyEventPublisher.publish(this.listeners.get(), this.namespace, key, outcome, this.storeName, nanos,
				failure);
	}

}
