package dev.idempotency.core;

/**
 * The outcome of {@link IdempotencyKeyInspector#release}.
 *
 * @since 0.2.0
 */
public enum KeyRelease {

	/** The key was removed: its next delivery runs the method again. */
	RELEASED,

	/** The store holds no such key (never claimed, expired, or purged). */
	NOT_FOUND,

	/**
	 * The key is {@code PROCESSING} under a lease that has not ended: a run may still be working on
	 * it, and releasing it would let a second run start beside the first. Nothing was changed.
	 */
	REFUSED_IN_PROGRESS

}
