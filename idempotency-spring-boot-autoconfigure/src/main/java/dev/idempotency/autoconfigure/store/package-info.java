/**
 * Auto-configuration of the default {@code IdempotencyStore}: the choice among the stores
 * ({@code idempotency.store.type}, read by {@code StoreTypeCondition}, which the JDBC and Redis
 * stores' auto-configurations use too) and the in-memory store. Each store technology configures its
 * own store in its {@code autoconfigure} package, before this one.
 */
@NullMarked
package dev.idempotency.autoconfigure.store;

import org.jspecify.annotations.NullMarked;
