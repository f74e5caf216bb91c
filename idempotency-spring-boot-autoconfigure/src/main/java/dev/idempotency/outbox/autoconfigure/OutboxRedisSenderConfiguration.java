package dev.idempotency.outbox.autoconfigure;

import dev.idempotency.outbox.redis.RedisStreamOutboxSender;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The outbox's Redis Stream sender, on the application's {@code RedisConnectionFactory}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(StringRedisTemplate.class)
class OutboxRedisSenderConfiguration {

	@Bean
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	@ConditionalOnMissingBean
	RedisStreamOutboxSender redisStreamOutboxSender(RedisConnectionFactory redisConnectionFactory) {
		return new RedisStreamOutboxSender(new StringRedisTemplate(redisConnectionFactory));
	}

}
