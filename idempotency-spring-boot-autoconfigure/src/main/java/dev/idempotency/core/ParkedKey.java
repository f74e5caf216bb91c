package dev.idempotency.core;

import java.time.Instant;

/**
 * A key parked for manual handling, as listed by {@link ParkedKeys}.
 *
 * @param key the key as stored (a part longer than the store's column, or starting with
 * {@code sha256:}, is its SHA-256 digest)
 * @param claimedAt when the unfinished run that led to parking claimed the key
 * @param attempts how many runs claimed the key before it was parked
 * @since 0.2.0
 */
public record ParkedKey(IdempotencyKey key, Instant claimedAt, int attempts) {
}
