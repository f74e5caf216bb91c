/**
 * The Actuator endpoint {@code idempotency}: look up and release keys, list and re-drive dead outbox
 * messages, handle parked keys, list and re-drive dead letters. One section per concern
 * ({@link dev.idempotency.autoconfigure.actuate.IdempotencyEndpointSection}), routed to by the
 * endpoint. Writes are off unless the endpoint's access is raised.
 */
@NullMarked
package dev.idempotency.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
