/**
 * Auto-configuration of the engine's Micrometer meters: the listener that records outcomes, purges,
 * dead letters, listener pauses and outbox events, the duplicate filters' meters, and the outbox
 * backlog gauges. The Redis Stream adapter's meters are wired in
 * {@code redis.stream.autoconfigure.metrics}.
 */
@NullMarked
package dev.idempotency.metrics.autoconfigure;

import org.jspecify.annotations.NullMarked;
