package dev.idempotency.redis.stream.autoconfigure;

import dev.idempotency.redis.stream.RedisStreamMessageTransport;
import dev.idempotency.store.redis.JedisFailureTypes;
import dev.idempotency.store.redis.LettuceFailureTypes;
import io.lettuce.core.RedisClient;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.stream.MapRecord;

/**
 * The Redis technology as the engine knows it, each part when its library is on the class path:
 * Redis Streams as a message transport (how {@code @RedisStreamListener} methods are named), and the
 * connection and timeout exceptions of the Redis clients (Lettuce, Jedis) that fail-closed calls the
 * infrastructure's, for every Redis part alike. Apart from
 * {@link IdempotencyRedisStreamAutoConfiguration} because no switch turns it off: a listener's
 * default namespace must not change with the adapter's switch, and the outbox relay classifies
 * failures without the interceptor.
 *
 * @since 0.2.0
 */
@AutoConfiguration
public final class IdempotencyRedisTransportAutoConfiguration {

	/** The stream API the listeners use. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MapRecord.class)
	static class StreamTransportConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisStreamMessageTransport idempotencyRedisStreamTransport() {
			return new RedisStreamMessageTransport();
		}

	}

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
