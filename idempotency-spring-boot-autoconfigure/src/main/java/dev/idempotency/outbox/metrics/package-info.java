/**
 * Micrometer meters of the transactional outbox: the relay's counters and latency, the backlog
 * gauges; names in {@link dev.idempotency.outbox.metrics.OutboxMeters}.
 */
@NullMarked
package dev.idempotency.outbox.metrics;

import org.jspecify.annotations.NullMarked;
