package dev.idempotency.core;

import org.jspecify.annotations.Nullable;

/**
 * What a store remembers with a processed key besides its status, when the method asked for it.
 *
 * @param fingerprint the SHA-256 fingerprint (lower-case hex) of the payload that was processed
 * under the key, or {@code null} if none was recorded
 * @param result the method's result, serialized, or {@code null} if none was recorded
 * @since 0.2.0
 */
public record RecordedKey(@Nullable String fingerprint, @Nullable String result) {
}
