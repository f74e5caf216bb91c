/**
 * Auto-configuration of the Redis store on the application's {@code RedisConnectionFactory}.
 */
@NullMarked
package dev.idempotency.store.redis.autoconfigure;

import org.jspecify.annotations.NullMarked;
