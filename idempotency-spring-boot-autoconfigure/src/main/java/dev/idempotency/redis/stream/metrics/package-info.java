/**
 * Micrometer meters of the Redis Stream adapter's consumer groups; names in
 * {@link dev.idempotency.redis.stream.metrics.RedisStreamMeters}.
 */
@NullMarked
package dev.idempotency.redis.stream.metrics;

import org.jspecify.annotations.NullMarked;
