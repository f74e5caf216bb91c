package dev.idempotency.redis.stream.autoconfigure;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.redis.stream.DeadLetterStreamRedrive;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Redis dead-letter streams in the {@code idempotency} Actuator endpoint
 * ({@code dead-letters/redis/{stream}}), when the endpoint is there (the conditions of
 * {@link IdempotencyEndpointAutoConfiguration}) and the stream adapter made its
 * {@link DeadLetterStreamRedrive}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(
		after = { IdempotencyRedisStreamAutoConfiguration.class, IdempotencyEndpointAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class, StringRedisTemplate.class })
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
@ConditionalOnBean({ IdempotencyStore.class, DeadLetterStreamRedrive.class })
public final class IdempotencyRedisStreamEndpointAutoConfiguration {

	@Bean
	RedisDeadLetterSource idempotencyRedisDeadLetterSource(DeadLetterStreamRedrive redrive) {
		return new RedisDeadLetterSource(redrive);
	}

}
