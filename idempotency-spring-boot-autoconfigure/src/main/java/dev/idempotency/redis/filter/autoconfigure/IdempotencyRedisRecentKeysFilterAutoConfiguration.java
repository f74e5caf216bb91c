package dev.idempotency.redis.filter.autoconfigure;

import java.time.Duration;

import dev.idempotency.autoconfigure.ConditionalOnFilterLayer;
import dev.idempotency.autoconfigure.IdempotencyFilterProperties;
import dev.idempotency.redis.filter.RedisRecentKeysFilter;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The {@code redis-recent} layer of the duplicate filter chain ({@link RedisRecentKeysFilter}: keys
 * completed recently, shared in Redis), when the chain is on, {@code idempotency.filter.layers} lists
 * it and the application has a {@code RedisConnectionFactory}. Its keys live
 * {@code idempotency.filter.recent.ttl}, by default the Kafka retry budget plus
 * {@code idempotency.filter.recent.ttl-margin}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "idempotency.filter.enabled")
@ConditionalOnClass(StringRedisTemplate.class)
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnFilterLayer("redis-recent")
@EnableConfigurationProperties(IdempotencyFilterProperties.class)
public final class IdempotencyRedisRecentKeysFilterAutoConfiguration {

	@Bean
	RedisRecentKeysFilter idempotencyRecentKeysFilter(IdempotencyFilterProperties properties, Environment environment,
			RedisConnectionFactory connectionFactory) {
		IdempotencyFilterProperties.Recent recent = properties.getRecent();
		Duration ttl = (recent.getTtl() != null) ? recent.getTtl()
				: RecentKeysTimeToLive.derive(environment, recent.getTtlMargin());
		return new RedisRecentKeysFilter(new StringRedisTemplate(connectionFactory), recent.getKeyPrefix(), ttl);
	}

}
