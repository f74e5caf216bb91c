/**
 * Auto-configuration of the outbox's meters: the relay's counters and latency timer, the backlog
 * gauges. Placed as Spring Boot places a technology's metrics auto-configuration
 * ({@code org.springframework.boot.kafka.autoconfigure.metrics}).
 */
@NullMarked
package dev.idempotency.outbox.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
