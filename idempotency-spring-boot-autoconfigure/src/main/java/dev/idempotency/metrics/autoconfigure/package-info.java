/**
 * Auto-configuration of the engine's Micrometer meters: the listener that records outcomes, purges,
 * reconciliations, dead letters and listener pauses, and the duplicate filters' meters. The Redis
 * Stream adapter's and the outbox's meters are wired in {@code redis.stream.autoconfigure.metrics}
 * and {@code outbox.autoconfigure.metrics}.
 */
@NullMarked
package dev.idempotency.metrics.autoconfigure;

import org.jspecify.annotations.NullMarked;
