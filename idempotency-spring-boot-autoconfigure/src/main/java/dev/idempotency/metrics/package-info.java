/**
 * Micrometer meters for idempotent invocations and purges; names in {@link dev.idempotency.metrics.IdempotencyMeters}.
 */
@NullMarked
package dev.idempotency.metrics;

import org.jspecify.annotations.NullMarked;
