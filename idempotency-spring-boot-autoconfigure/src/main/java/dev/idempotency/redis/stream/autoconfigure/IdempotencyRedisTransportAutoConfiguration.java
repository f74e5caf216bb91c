package dev.idempotency.redis.stream.autoconfigure;

import dev.idempotency.redis.stream.RedisStreamMessageTransport;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.stream.MapRecord;

/**
 * Redis Streams as a message transport of the engine, whenever the stream API the listeners use is
 * on the class path: how {@code @RedisStreamListener} methods are named. Apart from
 * {@link IdempotencyRedisStreamAutoConfiguration} because no switch turns it off: a listener's
 * default namespace must not change with the adapter's switch. The Redis clients' outage exceptions
 * come from the Redis store's {@code IdempotencyRedisFailureTypesAutoConfiguration}.
 *
 * @since 0.2.0
 */
@AutoConfiguration
@ConditionalOnClass(MapRecord.class)
public final class IdempotencyRedisTransportAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisStreamMessageTransport idempotencyRedisStreamTransport() {
		return new RedisStreamMessageTransport();
	}

}
