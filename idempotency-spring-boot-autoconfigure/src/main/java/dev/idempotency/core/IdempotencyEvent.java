package dev.idempotency.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One finished invocation, as told to {@link IdempotencyListener}s.
 *
 * @param namespace the namespace (resolved even when the key could not be)
 * @param key the key, or {@code null} when it was {@link IdempotencyOutcome#REJECTED rejected}
 * @param outcome how the invocation ended
 * @param store the store's {@link IdempotencyStore#name() name}
 * @param duration time from key resolution to commit (or failure)
 * @param failure the exception for {@code FAILED}, {@code REJECTED} and {@code IN_PROGRESS}
 * @since 0.1.0
 */
public record IdempotencyEvent(String namespace, @Nullable String key, IdempotencyOutcome outcome, String store,
		Duration duration, @Nullable Throwable failure) {
}
