/**
 * Test kit for applications that use {@code @Idempotent}: {@link dev.idempotency.test.IdempotencyTest}
 * (or {@link dev.idempotency.test.IdempotencyExtension}) on a Spring Boot test, an
 * {@link dev.idempotency.test.IdempotencyTester} that delivers twice, loses an acknowledgement after
 * the commit, expires leases and cuts the store off, and {@link dev.idempotency.test.IdempotencyAssert}
 * assertions over the engine's {@code idempotency.invocations} meter.
 */
@NullMarked
package dev.idempotency.test;

import org.jspecify.annotations.NullMarked;
