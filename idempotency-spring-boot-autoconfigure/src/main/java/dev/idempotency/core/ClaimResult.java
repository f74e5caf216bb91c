package dev.idempotency.core;

import org.jspecify.annotations.Nullable;

/**
 * What {@link IdempotencyStore#claim} found.
 *
 * @param status whether the caller may run the work
 * @param token identifies this claim for {@link IdempotencyStore#complete} and
 * {@link IdempotencyStore#release} in leased stores; {@code null} for transactional stores and for
 * claims that were not granted
 * @since 0.1.0
 */
public record ClaimResult(Status status, @Nullable String token) {

	private static final ClaimResult CLAIMED_IN_TRANSACTION = new ClaimResult(Status.CLAIMED, null);

	private static final ClaimResult DUPLICATE = new ClaimResult(Status.DUPLICATE, null);

	private static final ClaimResult IN_PROGRESS = new ClaimResult(Status.IN_PROGRESS, null);

	private static final ClaimResult PARKED = new ClaimResult(Status.PARKED, null);

	/** A claim granted inside the current transaction; it commits or rolls back with it. */
	public static ClaimResult claimedInTransaction() {
		return CLAIMED_IN_TRANSACTION;
	}

	/** A claim granted under a lease, identified by {@code token}. */
	public static ClaimResult claimed(String token) {
		return new ClaimResult(Status.CLAIMED, token);
	}

	/** The key was processed before and is still retained. */
	public static ClaimResult duplicate() {
		return DUPLICATE;
	}

	/** Another worker holds an unexpired lease on the key. */
	public static ClaimResult inProgress() {
		return IN_PROGRESS;
	}

	/**
	 * The key was parked for manual handling (a reconciler could not decide); its deliveries are
	 * acknowledged and skipped until a person resolves it.
	 * @since 0.2.0
	 */
	public static ClaimResult parked() {
		return PARKED;
	}

	public boolean isClaimed() {
		return this.status == Status.CLAIMED;
	}

	/** Outcome of a claim. */
	public enum Status {

		/** The caller owns the key and must run the work. */
		CLAIMED,

		/** The key was processed before; skip the work. */
		DUPLICATE,

		/**
		 * Someone else is processing the key right now, or its lease ended and a reconciler has yet
		 * to decide; try again later.
		 */
		IN_PROGRESS,

		/**
		 * The key waits for manual handling; skip the work and acknowledge.
		 * @since 0.2.0
		 */
		PARKED

	}

}
