/**
 * Auto-configuration of the Redis Stream adapter ({@code @RedisStreamListener} containers). The Redis
 * store itself is configured in {@code autoconfigure.store}.
 */
@NullMarked
package dev.idempotency.redis.stream.autoconfigure;

import org.jspecify.annotations.NullMarked;
