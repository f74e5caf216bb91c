/**
 * Auto-configuration of the Redis store on the application's {@code RedisConnectionFactory}, and of
 * the Redis clients' (Lettuce, Jedis) outage exceptions.
 */
@NullMarked
package dev.idempotency.store.redis.autoconfigure;

import org.jspecify.annotations.NullMarked;
