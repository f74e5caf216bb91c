package dev.idempotency.guard;

import org.jspecify.annotations.Nullable;

/**
 * What {@link BusinessGuards#transition} did.
 *
 * @param result whether the row moved, was already there, is elsewhere or is missing
 * @param currentStatus the row's status after the call: the target for {@link Result#APPLIED} and
 * {@link Result#ALREADY_IN_TARGET}, the status that blocked the move for {@link Result#CONFLICT}
 * ({@code null} if the column is {@code NULL}), {@code null} for {@link Result#NOT_FOUND}
 * @since 0.1.0
 */
public record Transition(Result result, @Nullable String currentStatus) {

	/** The outcome of a guarded state transition. */
	public enum Result {

		/** This call moved the row from an allowed source status to the target (one row updated). */
		APPLIED,

		/**
		 * The row is already in the target status: an earlier delivery of the same message moved it
		 * (a duplicate); skip the work and acknowledge.
		 */
		ALREADY_IN_TARGET,

		/**
		 * The row is in another status, neither an allowed source nor the target: the message does
		 * not apply to the entity as it is ({@link Transition#currentStatus()} says why).
		 */
		CONFLICT,

		/** No row has the given id. */
		NOT_FOUND

	}

}
