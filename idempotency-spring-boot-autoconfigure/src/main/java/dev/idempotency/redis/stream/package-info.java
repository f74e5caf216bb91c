/**
 * Redis Stream adapter: {@link dev.idempotency.redis.stream.RedisStreamListener} methods on
 * spring-data-redis' {@code StreamMessageListenerContainer} with manual acknowledgement, consumer
 * group creation and recreation, pending-entry recovery (XAUTOCLAIM) and a dead-letter stream.
 * <p>
 * {@code RedisStreamListenerContainer} keeps the lifecycle; one entry goes one way: a subscription
 * ({@code StreamConsumers}) or {@code PendingEntryRecovery} → {@code StreamEntryDispatcher} → (on
 * failure) {@code StreamFailurePolicy} → {@code DeadLetterStream}.
 */
@NullMarked
package dev.idempotency.redis.stream;

import org.jspecify.annotations.NullMarked;
