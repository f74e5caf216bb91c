/**
 * Auto-configuration of Redisson: the {@code redisson} store, the lock of lock-then-double-check
 * mode, a {@code RedissonClient} built from {@code spring.data.redis.*} when the application
 * has none, and the {@code redisson-bloom} layer of the duplicate filter chain.
 */
@NullMarked
package dev.idempotency.store.redisson.autoconfigure;

import org.jspecify.annotations.NullMarked;
