/**
 * Micrometer Observation and Tracing for the starter: an {@code idempotency.invocation}
 * observation per {@code @Idempotent} call, and the capture of the current trace context for the
 * outbox. Needs {@code micrometer-observation} on the class path; the capture also
 * {@code micrometer-tracing}.
 */
@NullMarked
package dev.idempotency.observation;

import org.jspecify.annotations.NullMarked;
