/**
 * Auto-configuration of the transactional outbox: its API, JDBC repository, schema, relay, senders
 * (Kafka, Redis Stream) and purge; its {@code idempotencyOutbox} health indicator and its
 * {@code outbox} section of the {@code idempotency} endpoint. Its meters are wired in the
 * {@code metrics} sub-package.
 */
@NullMarked
package dev.idempotency.outbox.autoconfigure;

import org.jspecify.annotations.NullMarked;
