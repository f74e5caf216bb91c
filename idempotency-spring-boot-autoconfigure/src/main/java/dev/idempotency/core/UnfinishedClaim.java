package dev.idempotency.core;

import java.time.Instant;

/**
 * A leased claim whose lease ended without completion, as offered to an
 * {@link IdempotencyReconciler}.
 *
 * @param key the key as stored (a part longer than the store's column, or starting with
 * {@code sha256:}, is its SHA-256 digest)
 * @param claimedAt when the unfinished run claimed the key
 * @param attempts how many runs have claimed the key so far, the unfinished one included
 * @param token identifies the reconciler's hold on the claim; used to settle it
 * @since 0.2.0
 */
public record UnfinishedClaim(IdempotencyKey key, Instant claimedAt, int attempts, String token) {
}
