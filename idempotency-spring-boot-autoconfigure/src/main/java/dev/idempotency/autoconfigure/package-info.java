/**
 * Auto-configuration of {@code @Idempotent}: the advisor, the interceptor and its resolvers
 * ({@code IdempotencyAutoConfiguration}), the core {@code idempotency.*} properties, the types shared
 * by several technologies ({@code RetryProperties}, {@code IdempotencyPurgeProperties}, the filter
 * chain's {@code IdempotencyFilterProperties} and {@code @ConditionalOnFilterLayer}) and the failure
 * analyzers, which explain exceptions thrown by the interceptor and by more than one technology. With
 * {@code store} (the store choice), {@code health} and {@code actuate}, these are the common
 * auto-configuration: each technology is configured in its own {@code <technology>.autoconfigure}
 * package, which depends on these and never the reverse. Together they are the only packages that
 * import Spring Boot.
 */
@NullMarked
package dev.idempotency.autoconfigure;

import org.jspecify.annotations.NullMarked;
