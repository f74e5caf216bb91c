/**
 * Auto-configuration of every Micrometer meter of the starter: the listener that records outcomes,
 * purges, dead letters, stream and outbox events, and the outbox backlog gauges. The only
 * autoconfigure package that imports Micrometer.
 */
@NullMarked
package dev.idempotency.metrics.autoconfigure;

import org.jspecify.annotations.NullMarked;
