package dev.idempotency.redis.stream.autoconfigure;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.core.DeliveryListener;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.redis.stream.DeadLetterStreamRedrive;
import dev.idempotency.redis.stream.JacksonRedisStreamPayloadConverter;
import dev.idempotency.redis.stream.RedisStreamListenerAnnotationBeanPostProcessor;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import dev.idempotency.redis.stream.RedisStreamPayloadConverter;
import dev.idempotency.redis.stream.RedisStreamSettings;
import dev.idempotency.support.FailClosedCircuits;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.function.SingletonSupplier;

/**
 * Redis Stream adapter: {@code @RedisStreamListener} methods read their consumer group through
 * spring-data-redis' stream commands, are acknowledged after commit (or, with
 * a Redis idempotency store on the same Redis, in the script that completes the key), and have
 * their pending entries claimed, retried and dead-lettered. With fail-closed on (the
 * {@link FailClosedCircuits} bean), an infrastructure failure pauses a listener instead of counting
 * a delivery. A {@link DeadLetterStreamRedrive} re-drives dead-letter streams on request.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
// The stream API the listeners use: their own read loop, not Spring Data's listener container.
@ConditionalOnClass(MapRecord.class)
@ConditionalOnBean(RedisConnectionFactory.class)
// Not switched off by idempotency.enabled: like @KafkaListener methods, stream listeners keep
// consuming, as plain methods, when the interception is off.
@ConditionalOnBooleanProperty(name = "idempotency.redis.stream.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyRedisStreamProperties.class)
public final class IdempotencyRedisStreamAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	static RedisStreamListenerAnnotationBeanPostProcessor redisStreamListenerAnnotationBeanPostProcessor() {
		return new RedisStreamListenerAnnotationBeanPostProcessor();
	}

	@Bean
	@ConditionalOnMissingBean
	RedisStreamListenerRegistry redisStreamListenerRegistry(RedisStreamListenerAnnotationBeanPostProcessor endpoints,
			RedisConnectionFactory connectionFactory, IdempotencyRedisStreamProperties properties,
			ObjectProvider<RedisStreamPayloadConverter> payloadConverter,
			ObjectProvider<DeliveryListener> listeners, ObjectProvider<FailClosedCircuits> circuits) {
		RedisStreamSettings settings = new RedisStreamSettings(properties.getConcurrency(), properties.getBatchSize(),
				properties.getPollTimeout(), properties.getMinIdle(), properties.getClaimInterval(),
				properties.getMaxDeliveries(), properties.getDeadLetter().getSuffix(),
				properties.getRecoveryBackOff(), properties.getPayloadField(),
				properties.getTransactionBatching().isEnabled());
		return new RedisStreamListenerRegistry(endpoints, connectionFactory, settings,
				payloadConverter.getIfAvailable(), SingletonSupplier.of(() -> listeners.orderedStream().toList()), circuits.getIfAvailable());
	}

	/**
	 * Lists and re-drives the entries of dead-letter streams.
	 */
	@Bean
	@ConditionalOnMissingBean
	DeadLetterStreamRedrive idempotencyDeadLetterStreamRedrive(RedisConnectionFactory connectionFactory,
			IdempotencyRedisStreamProperties properties) {
		return new DeadLetterStreamRedrive(new StringRedisTemplate(connectionFactory),
				properties.getDeadLetter().getSuffix());
	}

	/** Start-up notice of the redis-atomic completion on a Redis Cluster configured by Spring Boot. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
	static class ClusterNoticeConfiguration {

		@Bean
		RedisAtomicClusterNotice idempotencyRedisAtomicClusterNotice(
				ObjectProvider<DataRedisConnectionDetails> connectionDetails, ObjectProvider<IdempotencyStore> stores) {
			return new RedisAtomicClusterNotice(connectionDetails, stores);
		}

	}

	/** JSON payloads with Jackson, when it is on the class path. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(JsonMapper.class)
	static class JacksonPayloadConverterConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisStreamPayloadConverter redisStreamPayloadConverter(ObjectProvider<JsonMapper> jsonMapper) {
			return new JacksonRedisStreamPayloadConverter(jsonMapper.getIfAvailable(JsonMapper::shared));
		}

	}

}
