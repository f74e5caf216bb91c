/**
 * RabbitMQ adapter: binds each delivery of a {@code @RabbitListener} that has {@code @Idempotent}
 * methods to the delivery context, acknowledges it after commit (manual acknowledgement), retries
 * failures in place with back-off, then dead-letters them with their cause in headers, and holds the
 * delivery through an infrastructure outage (fail-closed).
 */
@NullMarked
package dev.idempotency.rabbit;

import org.jspecify.annotations.NullMarked;
