/**
 * Redisson: a leased store whose entries are Redis strings claimed with {@code SET NX PX}, the
 * {@code RLock} of lock-then-double-check mode, and a shared Bloom filter with rotating
 * generations. The only package that imports {@code org.redisson}.
 */
@NullMarked
package dev.idempotency.store.redisson;

import org.jspecify.annotations.NullMarked;
