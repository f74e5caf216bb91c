/**
 * The outbox's RabbitMQ sender. The only outbox package that uses spring-rabbit.
 */
@NullMarked
package dev.idempotency.outbox.rabbit;

import org.jspecify.annotations.NullMarked;
