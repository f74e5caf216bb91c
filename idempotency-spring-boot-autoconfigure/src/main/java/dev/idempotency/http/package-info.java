/**
 * The HTTP transport: {@code @Idempotent} on Spring MVC handler methods, keyed by the
 * {@code Idempotency-Key} request header, with the request fingerprinted and the response stored and
 * replayed by the engine's key details.
 */
@NullMarked
package dev.idempotency.http;

import org.jspecify.annotations.NullMarked;
