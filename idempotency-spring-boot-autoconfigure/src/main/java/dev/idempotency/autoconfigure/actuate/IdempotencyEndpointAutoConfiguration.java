package dev.idempotency.autoconfigure.actuate;

import java.util.Map;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.autoconfigure.outbox.IdempotencyOutboxAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.ParkedKeys;
import dev.idempotency.kafka.DeadLetterRedrive;
import dev.idempotency.outbox.OutboxAdmin;
import dev.idempotency.redis.stream.DeadLetterStreamRedrive;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code idempotency} Actuator endpoint ({@link IdempotencyEndpoint}), when Spring Boot's
 * Actuator is on the class path, the application has an {@link IdempotencyStore} and the endpoint
 * is available (its access is not {@code none} and it is exposed:
 * {@code management.endpoints.web.exposure.include=idempotency}). Reads are allowed by default;
 * writes need {@code management.endpoint.idempotency.access=unrestricted}. Dead letters are listed
 * and re-driven through the {@link DeadLetterSource} beans: Kafka's when the Kafka adapter made a
 * {@link DeadLetterRedrive}, Redis' when the stream adapter made a {@link DeadLetterStreamRedrive}.
 * A bean of the
 * application's own of type {@link IdempotencyEndpoint} replaces it.
 *
 * @since 0.2.0
 */
@AutoConfiguration(
		after = { IdempotencyStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class },
		afterName = { "dev.idempotency.autoconfigure.redisson.IdempotencyRedissonAutoConfiguration",
				"dev.idempotency.autoconfigure.kafka.IdempotencyKafkaAutoConfiguration",
				"dev.idempotency.autoconfigure.redis.IdempotencyRedisStreamAutoConfiguration" })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
@ConditionalOnBean(IdempotencyStore.class)
public final class IdempotencyEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotencyEndpoint idempotencyEndpoint(Map<String, IdempotencyStore> stores,
			ObjectProvider<OutboxAdmin> outbox, ObjectProvider<ParkedKeys> parkedKeys,
			ObjectProvider<IdempotencyProperties> properties, ObjectProvider<DeadLetterSource> deadLetters) {
		IdempotencyProperties idempotency = properties.getIfAvailable(IdempotencyProperties::new);
		return new IdempotencyEndpoint(stores, outbox.getIfUnique(), parkedKeys.getIfUnique(),
				idempotency.getRetention(), deadLetters.orderedStream().toList());
	}

	/** Kafka dead-letter topics, when the Kafka adapter made its {@link DeadLetterRedrive}. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.kafka.core.KafkaOperations")
	@ConditionalOnBean(DeadLetterRedrive.class)
	static class KafkaDeadLettersConfiguration {

		@Bean
		KafkaDeadLetterSource idempotencyKafkaDeadLetterSource(DeadLetterRedrive redrive) {
			return new KafkaDeadLetterSource(redrive);
		}

	}

	/** Redis dead-letter streams, when the stream adapter made its {@link DeadLetterStreamRedrive}. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.data.redis.core.StringRedisTemplate")
	@ConditionalOnBean(DeadLetterStreamRedrive.class)
	static class RedisDeadLettersConfiguration {

		@Bean
		RedisDeadLetterSource idempotencyRedisDeadLetterSource(DeadLetterStreamRedrive redrive) {
			return new RedisDeadLetterSource(redrive);
		}

	}

}
