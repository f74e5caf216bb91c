package dev.idempotency.redis.stream.autoconfigure;

import dev.idempotency.autoconfigure.health.IdempotencyHealthProperties;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.stream.MapRecord;

/**
 * The {@code idempotencyStreams} health indicator ({@link IdempotencyStreamsHealthIndicator}): the
 * Redis Stream subscriptions, when Spring Boot's health module is on the class path and the Redis
 * Stream adapter runs. Switched off with {@code management.health.idempotencystreams.enabled=false}
 * and replaced by a bean of the application's own named {@code idempotencyStreamsHealthIndicator};
 * its threshold is {@code idempotency.health.streams.inactive-threshold}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = IdempotencyRedisStreamAutoConfiguration.class)
@ConditionalOnClass({ HealthContributor.class, ConditionalOnEnabledHealthIndicator.class, MapRecord.class })
@ConditionalOnBean(RedisStreamListenerRegistry.class)
@EnableConfigurationProperties(IdempotencyHealthProperties.class)
public final class IdempotencyRedisStreamHealthAutoConfiguration {

	@Bean
	@ConditionalOnEnabledHealthIndicator("idempotencystreams")
	@ConditionalOnMissingBean(name = "idempotencyStreamsHealthIndicator")
	IdempotencyStreamsHealthIndicator idempotencyStreamsHealthIndicator(RedisStreamListenerRegistry registry,
			IdempotencyHealthProperties properties) {
		return new IdempotencyStreamsHealthIndicator(registry, properties.getStreams().getInactiveThreshold());
	}

}
