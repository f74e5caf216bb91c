/**
 * Auto-configuration of the transactional outbox: its API, JDBC repository, schema, relay, senders
 * (Kafka, Redis Stream) and purge. Its meters are wired in {@code autoconfigure.metrics}.
 */
@NullMarked
package dev.idempotency.autoconfigure.outbox;

import org.jspecify.annotations.NullMarked;
