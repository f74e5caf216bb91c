/**
 * Actuator health indicators of the starter (Spring Boot's health contributor API): the dedup stores
 * and the listeners paused by fail-closed, the properties of every indicator and the bounded call
 * they share. The technologies' own indicators (the Redis Stream subscriptions, the outbox) are in
 * their {@code autoconfigure} packages. Each is switched with
 * {@code management.health.<name>.enabled}.
 */
@NullMarked
package dev.idempotency.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
