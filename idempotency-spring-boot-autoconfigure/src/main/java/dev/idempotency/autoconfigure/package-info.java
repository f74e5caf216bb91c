/**
 * Auto-configuration of {@code @Idempotent}: the advisor, the interceptor and its resolvers
 * ({@code IdempotencyAutoConfiguration}), the core {@code idempotency.*} properties, the types shared
 * by several features ({@code RetryProperties}, {@code IdempotencyPurgeProperties}) and the failure
 * analyzers, which explain exceptions thrown by the interceptor and by more than one feature. Each
 * feature is configured in its own sub-package ({@code store}, {@code kafka}, {@code redis},
 * {@code outbox}, {@code metrics}); together they are the only packages that import Spring Boot.
 */
@NullMarked
package dev.idempotency.autoconfigure;

import org.jspecify.annotations.NullMarked;
