package dev.idempotency.core;

/**
 * How one invocation of an {@code @Idempotent} method ended. Every delivery ends in exactly one, so
 * received = processed + duplicate + failed + rejected (+ in progress, which is retried).
 *
 * @since 0.1.0
 */
public enum IdempotencyOutcome {

	/** The method ran and its transaction committed. */
	PROCESSED,

	/** The key was processed before; the method was skipped. */
	DUPLICATE,

	/** The method, the claim or the commit failed; nothing was acknowledged. */
	FAILED,

	/** Another worker holds the key's lease; the delivery is to be retried later. */
	IN_PROGRESS,

	/** The key could not be resolved (missing, blank, expression error); retrying cannot help. */
	REJECTED,

	/**
	 * The key waits for manual handling (leased mode, parked by a reconciler); the method was
	 * skipped and the delivery acknowledged.
	 * @since 0.2.0
	 */
	PARKED,

	/**
	 * The key was processed before with a different payload (its fingerprint differs); the delivery
	 * is refused as a message failure and dead-lettered, never skipped.
	 * @since 0.2.0
	 */
	CONFLICT;

	/** Lower-case name used as a metric tag. */
	public String tag() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
