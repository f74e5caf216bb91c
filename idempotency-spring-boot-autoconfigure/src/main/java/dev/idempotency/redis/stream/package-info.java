/**
 * Redis Stream adapter: {@link dev.idempotency.redis.stream.RedisStreamListener} methods, each
 * consumer reading on a connection of its own with manual acknowledgement (one XACK for the entries
 * of a read that are done), consumer group creation and recreation, pending-entry recovery
 * (XAUTOCLAIM) and a dead-letter stream.
 * <p>
 * {@code RedisStreamListenerContainer} keeps the lifecycle; one entry goes one way: a subscription
 * ({@code StreamConsumers}, {@code StreamReadLoop}) or {@code PendingEntryRecovery} →
 * {@code StreamEntryDispatcher} → (on failure) {@code StreamFailurePolicy} →
 * {@code DeadLetterStream}.
 */
@NullMarked
package dev.idempotency.redis.stream;

import org.jspecify.annotations.NullMarked;
