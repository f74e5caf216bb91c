/**
 * A shared duplicate filter in Redis: the keys that completed recently, each with a time to live.
 */
@NullMarked
package dev.idempotency.redis.filter;

import org.jspecify.annotations.NullMarked;
