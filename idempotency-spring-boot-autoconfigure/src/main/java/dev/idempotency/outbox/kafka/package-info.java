/**
 * The outbox's Kafka sender. The only outbox package that uses spring-kafka.
 */
@NullMarked
package dev.idempotency.outbox.kafka;

import org.jspecify.annotations.NullMarked;
