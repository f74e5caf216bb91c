/**
 * Redis helpers shared by the Redis and Redisson stores, with no Redis client in them:
 * {@link dev.idempotency.support.redis.KeyDetailsScripts} (the Lua scripts of fingerprints and stored
 * results) and {@link dev.idempotency.support.redis.RedisClusterSlots} (hash slots and tags, so that a
 * key and its details hash share a Cluster slot).
 */
@NullMarked
package dev.idempotency.support.redis;

import org.jspecify.annotations.NullMarked;
