package dev.idempotency.guard;

import org.jspecify.annotations.Nullable;

/**
 * What {@link BusinessGuards#updateIfVersion} did.
 *
 * @param result whether the row was changed, is newer, is older or is missing
 * @param version the row's version after the call: the incremented version for
 * {@link Result#APPLIED}, the stored version for {@link Result#STALE} and {@link Result#AHEAD},
 * {@code null} for {@link Result#NOT_FOUND}
 * @since 0.1.0
 */
public record VersionedUpdate(Result result, @Nullable Long version) {

	/** The outcome of an optimistic, version-guarded update. */
	public enum Result {

		/** The row had the expected version; this call changed it and incremented the version. */
		APPLIED,

		/**
		 * The row has a higher version than expected: this message, or a later one, was applied
		 * already (a duplicate or a superseded change); skip the work and acknowledge.
		 */
		STALE,

		/**
		 * The row has a lower version than expected: a change the message builds on has not arrived
		 * yet (out-of-order delivery). Retry later rather than skip, or the message is lost.
		 */
		AHEAD,

		/** No row has the given id. */
		NOT_FOUND

	}

}
