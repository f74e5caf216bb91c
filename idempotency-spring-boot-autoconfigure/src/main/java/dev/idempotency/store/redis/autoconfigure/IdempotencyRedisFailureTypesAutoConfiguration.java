package dev.idempotency.store.redis.autoconfigure;

import dev.idempotency.store.redis.JedisFailureTypes;
import dev.idempotency.store.redis.LettuceFailureTypes;
import io.lettuce.core.RedisClient;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The connection and timeout exceptions of the Redis clients (Lettuce, Jedis), each when its client
 * is on the class path, which fail-closed and the outbox relay call the infrastructure's, for every
 * Redis part alike (the store, the stream adapter, the outbox's sender). Apart from
 * {@link IdempotencyRedisStoreAutoConfiguration} because no switch turns it off: the outbox relay
 * classifies failures without the interceptor and without the Redis store.
 *
 * @since 0.2.0
 */
@AutoConfiguration
public final class IdempotencyRedisFailureTypesAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedisClient.class)
	static class LettuceConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LettuceFailureTypes idempotencyLettuceFailureTypes() {
			return new LettuceFailureTypes();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Jedis.class)
	static class JedisConfiguration {

		@Bean
		@ConditionalOnMissingBean
		JedisFailureTypes idempotencyJedisFailureTypes() {
			return new JedisFailureTypes();
		}

	}

}
