/**
 * The Actuator endpoint {@code idempotency}: look up and release keys, list and re-drive dead outbox
 * messages, handle parked keys. Writes are off unless the endpoint's access is raised.
 */
@NullMarked
package dev.idempotency.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
