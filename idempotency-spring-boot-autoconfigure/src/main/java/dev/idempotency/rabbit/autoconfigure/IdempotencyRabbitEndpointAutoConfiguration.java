package dev.idempotency.rabbit.autoconfigure;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.rabbit.RabbitDeadLetterRedrive;

import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * RabbitMQ dead-letter queues in the {@code idempotency} Actuator endpoint
 * ({@code dead-letters/rabbit/{queue}}), when the endpoint is there (the conditions of
 * {@link IdempotencyEndpointAutoConfiguration}) and the RabbitMQ adapter made its
 * {@link RabbitDeadLetterRedrive}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = { IdempotencyRabbitAutoConfiguration.class, IdempotencyEndpointAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class, RabbitListenerEndpointRegistry.class })
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
@ConditionalOnBean({ IdempotencyStore.class, RabbitDeadLetterRedrive.class })
public final class IdempotencyRabbitEndpointAutoConfiguration {

	@Bean
	RabbitDeadLetterSource idempotencyRabbitDeadLetterSource(RabbitDeadLetterRedrive redrive) {
		return new RabbitDeadLetterSource(redrive);
	}

}
