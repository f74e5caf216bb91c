package dev.idempotency.redis.stream;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * One {@link RedisStreamListener} method, its placeholders resolved.
 *
 * @param id the listener's id
 * @param stream the stream key
 * @param group the consumer group
 * @param consumer the consumer name, or {@code null} for a unique one per instance
 * @param concurrency consumers in this instance, or {@code null} for the configured default
 * @param bean the bean to invoke (the proxy, so that {@code @Idempotent} advice runs)
 * @param method the method to invoke, callable on {@code bean}
 * @since 0.1.0
 */
public record RedisStreamListenerEndpoint(String id, String stream, String group, @Nullable String consumer,
		@Nullable Integer concurrency, Object bean, Method method) {

}
