/**
 * Auto-configuration of the RabbitMQ adapter: the listener containers of {@code @Idempotent}
 * listeners switched to manual acknowledgement after commit, with retries, dead letters and
 * fail-closed; RabbitMQ as a transport; its dead-letter queues in the {@code idempotency} endpoint.
 */
@NullMarked
package dev.idempotency.rabbit.autoconfigure;

import org.jspecify.annotations.NullMarked;
