/**
 * Auto-configuration of the transactional outbox: its API, JDBC repository, schema, relay, senders
 * (Kafka, Redis Stream) and purge. Its meters are wired in {@code autoconfigure.metrics}.
 */
@NullMarked
package dev.idempotency.outbox.autoconfigure;

import org.jspecify.annotations.NullMarked;
