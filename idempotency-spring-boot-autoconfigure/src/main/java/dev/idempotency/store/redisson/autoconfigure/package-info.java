/**
 * Auto-configuration of Redisson: the {@code redisson} store, the lock of lock-then-double-check
 * mode, and a {@code RedissonClient} built from {@code spring.data.redis.*} when the application
 * has none.
 */
@NullMarked
package dev.idempotency.store.redisson.autoconfigure;

import org.jspecify.annotations.NullMarked;
