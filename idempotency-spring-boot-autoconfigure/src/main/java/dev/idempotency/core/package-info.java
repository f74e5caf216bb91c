/**
 * The SPI and value types every store and transport adapter shares: stores, keys, claims, the
 * delivery bound to the current thread, acknowledgement and outcome listeners. No Spring Boot, no
 * broker client.
 */
@NullMarked
package dev.idempotency.core;

import org.jspecify.annotations.NullMarked;
