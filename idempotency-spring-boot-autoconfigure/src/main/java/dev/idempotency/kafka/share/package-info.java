/**
 * Kafka share groups (KIP-932): {@code @Idempotent} on {@code @KafkaListener}s of a
 * {@code ShareKafkaListenerContainerFactory}. Each record is bound to the delivery context, accepted
 * only after the business transaction commits, released on a rollback or an outage (which also
 * pauses fetching), dead-lettered and rejected when it cannot succeed, and its acquisition lock
 * renewed while a slow method runs.
 */
@NullMarked
package dev.idempotency.kafka.share;

import org.jspecify.annotations.NullMarked;
