/**
 * Auto-configuration of the {@code idempotency.invocation} observation and of the outbox's trace
 * context capture.
 */
@NullMarked
package dev.idempotency.observation.autoconfigure;

import org.jspecify.annotations.NullMarked;
