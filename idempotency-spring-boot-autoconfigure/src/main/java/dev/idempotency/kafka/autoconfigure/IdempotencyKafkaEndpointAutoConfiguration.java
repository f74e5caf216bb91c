package dev.idempotency.kafka.autoconfigure;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.kafka.DeadLetterRedrive;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaOperations;

/**
 * Kafka dead-letter topics in the {@code idempotency} Actuator endpoint
 * ({@code dead-letters/kafka/{topic}}), when the endpoint is there (the conditions of
 * {@link IdempotencyEndpointAutoConfiguration}) and the Kafka adapter made its
 * {@link DeadLetterRedrive}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = { IdempotencyKafkaAutoConfiguration.class, IdempotencyEndpointAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class, KafkaOperations.class })
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
@ConditionalOnBean({ IdempotencyStore.class, DeadLetterRedrive.class })
public final class IdempotencyKafkaEndpointAutoConfiguration {

	@Bean
	KafkaDeadLetterSource idempotencyKafkaDeadLetterSource(DeadLetterRedrive redrive) {
		return new KafkaDeadLetterSource(redrive);
	}

}
