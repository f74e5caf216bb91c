package dev.idempotency.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One observed call of an {@code @Idempotent} method, started by an {@link InvocationObserver}.
 * {@link #stop} is called once the outcomes are known, on the thread that completed the call's
 * transaction (for a joined transaction, after the intercepted method has returned); calls after
 * the first are ignored.
 *
 * @since 0.2.0
 */
public interface ObservedInvocation {

	/** Observes nothing. */
	ObservedInvocation NONE = new ObservedInvocation() {

		@Override
		public Scope openScope() {
			return Scope.NONE;
		}

		@Override
		public void stop(List<IdempotencyKey> keys, List<IdempotencyOutcome> outcomes, @Nullable Throwable failure) {
		}

	};

	/**
	 * Makes this observation the current one on the calling thread, so that what the method does
	 * (database calls, messages it sends) is observed as its children.
	 * @return the scope, to be closed on the same thread
	 */
	Scope openScope();

	/**
	 * Stops the observation; idempotent.
	 * @param keys the call's keys; empty when none could be resolved
	 * @param outcomes one outcome per key, or one {@link IdempotencyOutcome#REJECTED} without a
	 * key; empty when the call ended before it had outcomes
	 * @param failure the exception the call ended with, or {@code null}
	 */
	void stop(List<IdempotencyKey> keys, List<IdempotencyOutcome> outcomes, @Nullable Throwable failure);

	/** The scope of an observation on one thread. */
	@FunctionalInterface
	interface Scope extends AutoCloseable {

		/** A scope that makes nothing current. */
		Scope NONE = () -> {
		};

		/** Restores what was current before the scope was opened. */
		@Override
		void close();

	}

}
