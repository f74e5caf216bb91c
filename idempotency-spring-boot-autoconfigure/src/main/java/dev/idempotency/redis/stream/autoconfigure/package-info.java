/**
 * Auto-configuration of the Redis Stream adapter ({@code @RedisStreamListener} containers), of Redis
 * Streams as a transport, of the {@code idempotencyStreams} health indicator and of the dead-letter
 * streams in the {@code idempotency} endpoint. The Redis store itself is configured in
 * {@code store.redis.autoconfigure}.
 */
@NullMarked
package dev.idempotency.redis.stream.autoconfigure;

import org.jspecify.annotations.NullMarked;
