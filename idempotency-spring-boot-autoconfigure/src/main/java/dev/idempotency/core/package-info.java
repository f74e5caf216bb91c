/**
 * The SPI and value types every store and transport adapter shares: stores, keys, claims, the
 * delivery bound to the current thread, acknowledgement and outcome listeners. No Spring Boot, no
 * broker client, and no type of one transport or feature: those live in the technology's package
 * ({@code redis.stream.StreamConsumerListener}, {@code outbox.OutboxListener}).
 */
@NullMarked
package dev.idempotency.core;

import org.jspecify.annotations.NullMarked;
