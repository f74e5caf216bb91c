/**
 * Auto-configuration of the Redis Stream adapter's meters, as Spring Boot places a technology's
 * metrics auto-configuration ({@code org.springframework.boot.kafka.autoconfigure.metrics}).
 */
@NullMarked
package dev.idempotency.redis.stream.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
