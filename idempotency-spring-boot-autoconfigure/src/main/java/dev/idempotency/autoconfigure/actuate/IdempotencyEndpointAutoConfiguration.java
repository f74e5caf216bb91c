package dev.idempotency.autoconfigure.actuate;

import java.util.Map;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.kafka.autoconfigure.KafkaDeadLetterSource;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.ParkedKeys;
import dev.idempotency.kafka.DeadLetterRedrive;
import dev.idempotency.outbox.OutboxAdmin;
import dev.idempotency.outbox.autoconfigure.OutboxSection;
import dev.idempotency.redis.stream.DeadLetterStreamRedrive;
import dev.idempotency.redis.stream.autoconfigure.RedisDeadLetterSource;

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
 * The {@code idempotency} Actuator endpoint ({@link IdempotencyEndpoint}) and its sections, when
 * Spring Boot's Actuator is on the class path, the application has an {@link IdempotencyStore} and
 * the endpoint is available (its access is not {@code none} and it is exposed:
 * {@code management.endpoints.web.exposure.include=idempotency}). Reads are allowed by default;
 * writes need {@code management.endpoint.idempotency.access=unrestricted}. Dead letters are listed
 * and re-driven through the {@link DeadLetterSource} beans: Kafka's when the Kafka adapter made a
 * {@link DeadLetterRedrive}, Redis' when the stream adapter made a {@link DeadLetterStreamRedrive}.
 * Each concern is an {@link IdempotencyEndpointSection} bean ({@code keys}, {@code outbox},
 * {@code parked}, {@code dead-letters}); a section bean of the application's own adds a path. A
 * bean of the application's own of type {@link IdempotencyEndpoint} replaces the endpoint.
 *
 * @since 0.2.0
 */
@AutoConfiguration(
		after = { IdempotencyStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class },
		afterName = { "dev.idempotency.store.redisson.autoconfigure.IdempotencyRedissonAutoConfiguration",
				"dev.idempotency.kafka.autoconfigure.IdempotencyKafkaAutoConfiguration",
				"dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamAutoConfiguration" })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
@ConditionalOnBean(IdempotencyStore.class)
public final class IdempotencyEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotencyEndpoint idempotencyEndpoint(ObjectProvider<IdempotencyEndpointSection> sections) {
		return new IdempotencyEndpoint(sections.orderedStream().toList());
	}

	@Bean
	KeysSection idempotencyEndpointKeysSection(Map<String, IdempotencyStore> stores) {
		return new KeysSection(stores);
	}

	@Bean
	OutboxSection idempotencyEndpointOutboxSection(ObjectProvider<OutboxAdmin> outbox) {
		return new OutboxSection(outbox.getIfUnique());
	}

	@Bean
	ParkedKeysSection idempotencyEndpointParkedSection(ObjectProvider<ParkedKeys> parkedKeys,
			ObjectProvider<IdempotencyProperties> properties) {
		IdempotencyProperties idempotency = properties.getIfAvailable(IdempotencyProperties::new);
		return new ParkedKeysSection(parkedKeys.getIfUnique(), idempotency.getRetention());
	}

	@Bean
	DeadLettersSection idempotencyEndpointDeadLettersSection(ObjectProvider<DeadLetterSource> deadLetters) {
		return new DeadLettersSection(deadLetters.orderedStream().toList());
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
