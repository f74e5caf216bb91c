/**
 * Actuator health indicators of the starter (Spring Boot's health contributor API): the dedup
 * stores, the listeners paused by fail-closed, the Redis Stream subscriptions and the outbox. Each is
 * switched with {@code management.health.<name>.enabled}.
 */
@NullMarked
package dev.idempotency.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
