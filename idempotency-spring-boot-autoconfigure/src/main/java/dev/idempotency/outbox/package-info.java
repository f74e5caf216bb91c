/**
 * The transactional outbox: {@link dev.idempotency.outbox.Outbox#publish} writes a message to the
 * outbox table inside the business transaction, and the {@link dev.idempotency.outbox.OutboxRelay}
 * sends committed rows to Kafka or a Redis Stream with a stable {@code message-id}, at least once,
 * so that {@code @Idempotent} consumers absorb its re-sends.
 */
@NullMarked
package dev.idempotency.outbox;

import org.jspecify.annotations.NullMarked;
