package dev.idempotency.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a store holds for one key, as {@link IdempotencyKeyInspector#inspect} reads it for people and
 * management endpoints. Only presence is reported of the fingerprint and the stored result, never
 * their content.
 *
 * @param key the key as stored (a part longer than the store keeps verbatim, or starting with
 * {@code sha256:}, is its SHA-256 digest)
 * @param status the key's state
 * @param createdAt when the key was claimed, or {@code null} if the store does not keep it (Redis)
 * @param expiresAt when the store forgets the key: the end of the retention of a completed key, the
 * end of the entry's lease on a key-value store; {@code null} if it never expires on its own
 * @param ownerTokenPresent whether a claim's owner token is held (a {@code PROCESSING} key)
 * @param leaseUntil the end of an in-progress claim's lease, or {@code null}
 * @param attempts how many runs claimed the key, or {@code null} if the store does not count them
 * @param fingerprintPresent whether a payload fingerprint is recorded with the key
 * @param resultPresent whether a serialized result is recorded with the key
 * @param duplicates how many duplicate deliveries of the key were counted, or {@code null} when the
 * store keeps no per-key duplicate accounting ({@code idempotency.duplicate-accounting})
 * @param lastDuplicateAt when the last counted duplicate was seen, or {@code null}
 * @since 0.2.0
 */
public record KeyRecord(IdempotencyKey key, Status status, @Nullable Instant createdAt, @Nullable Instant expiresAt,
		boolean ownerTokenPresent, @Nullable Instant leaseUntil, @Nullable Integer attempts,
		boolean fingerprintPresent, boolean resultPresent, @Nullable Integer duplicates,
		@Nullable Instant lastDuplicateAt) {

	/**
	 * A record without per-key duplicate accounting.
	 * @param key the key as stored
	 * @param status the key's state
	 * @param createdAt when the key was claimed, or {@code null} if the store does not keep it
	 * @param expiresAt when the key is forgotten, or {@code null} if unknown
	 * @param ownerTokenPresent whether a run holds the key under a token
	 * @param leaseUntil when the lease ends, or {@code null}
	 * @param attempts how many runs claimed the key, or {@code null} if the store does not count
	 * @param fingerprintPresent whether a payload fingerprint is recorded
	 * @param resultPresent whether a result is stored
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #KeyRecord(IdempotencyKey, Status, Instant, Instant,
	 * boolean, Instant, Integer, boolean, boolean, Integer, Instant)} with two {@code null}s
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public KeyRecord(IdempotencyKey key, Status status, @Nullable Instant createdAt, @Nullable Instant expiresAt,
			boolean ownerTokenPresent, @Nullable Instant leaseUntil, @Nullable Integer attempts,
			boolean fingerprintPresent, boolean resultPresent) {
		this(key, status, createdAt, expiresAt, ownerTokenPresent, leaseUntil, attempts, fingerprintPresent,
				resultPresent, null, null);
	}

	/**
	 * Whether a run may still be working on the key: it is {@code PROCESSING} under a lease that has
	 * not ended at {@code now}.
	 * @param now the current time
	 * @return {@code true} if releasing the key could let a second run start beside the first
	 */
	public boolean mayStillRun(Instant now) {
		return this.status == Status.PROCESSING && (this.leaseUntil == null || this.leaseUntil.isAfter(now));
	}

	/**
	 * The state of a key in a store.
	 */
	public enum Status {

		/** Processed: deliveries of the key are skipped until it expires. */
		COMPLETED,

		/** Claimed by a run under a lease (leased mode), not finished. */
		PROCESSING,

		/** Left for a person by a reconciler ({@link ParkedKeys}). */
		PARKED

	}

}
