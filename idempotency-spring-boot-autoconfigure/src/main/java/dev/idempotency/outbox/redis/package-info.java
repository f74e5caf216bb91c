/**
 * The outbox's Redis Stream sender. The only outbox package that uses spring-data-redis.
 */
@NullMarked
package dev.idempotency.outbox.redis;

import org.jspecify.annotations.NullMarked;
