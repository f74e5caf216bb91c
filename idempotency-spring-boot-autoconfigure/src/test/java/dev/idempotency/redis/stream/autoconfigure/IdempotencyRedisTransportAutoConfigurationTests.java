package dev.idempotency.redis.stream.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.FailureKind;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.InfrastructureFailureTypes;
import dev.idempotency.core.MessageTransport;
import dev.idempotency.redis.stream.RedisStreamListener;
import dev.idempotency.redis.stream.RedisStreamMessageTransport;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.JedisFailureTypes;
import dev.idempotency.store.redis.LettuceFailureTypes;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisFailureTypesAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.data.redis.connection.stream.MapRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyRedisTransportAutoConfiguration}: Redis Streams is a transport, and
 * the Redis clients' outages are the infrastructure's, each when its library is on the class path,
 * whatever the adapter's switches say.
 */
class IdempotencyRedisTransportAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyRedisTransportAutoConfiguration.class,
				IdempotencyRedisFailureTypesAutoConfiguration.class));

	private final ApplicationContextRunner withEngine = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory")
		.withBean(NamespaceRecorder.class)
		.withBean(StreamOrderListener.class);

	@Test
	void redisStreamsIsATransportAndTheClientsContributeTheirFailureTypes() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(MessageTransport.class)
				.hasSingleBean(RedisStreamMessageTransport.class)
				.hasSingleBean(LettuceFailureTypes.class)
				.hasSingleBean(JedisFailureTypes.class);
			assertThat(context.getBeansOfType(InfrastructureFailureTypes.class)).hasSize(3);
		});
	}

	@Test
	void withoutTheStreamApiThereIsNoTransport() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MapRecord.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(MessageTransport.class)
				.hasSingleBean(LettuceFailureTypes.class));
	}

	@Test
	void eachClientContributesOnlyWhenOnTheClassPath() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RedisClient.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LettuceFailureTypes.class)
				.hasSingleBean(JedisFailureTypes.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(Jedis.class))
			.run((context) -> assertThat(context).doesNotHaveBean(JedisFailureTypes.class)
				.hasSingleBean(LettuceFailureTypes.class));
	}

	@Test
	void staysWhenTheStreamAdapterOrTheInterceptionIsOff() {
		this.contextRunner.withPropertyValues("idempotency.redis.stream.enabled=false", "idempotency.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(RedisStreamMessageTransport.class)
				.hasSingleBean(LettuceFailureTypes.class));
	}

	@Test
	void defaultNamespaceNamesTheListenerByItsRedisStreamListenerId() {
		this.withEngine.withConfiguration(AutoConfigurations.of(IdempotencyRedisTransportAutoConfiguration.class,
				IdempotencyRedisFailureTypesAutoConfiguration.class))
			.run((context) -> {
				context.getBean(StreamOrderListener.class).onOrder("o-1");
				assertThat(context.getBean(NamespaceRecorder.class).namespaces).containsExactly("stream-orders");
			});
	}

	@Test
	void redisClientOutagesAreTheInfrastructures() {
		this.withEngine.withConfiguration(AutoConfigurations.of(IdempotencyRedisTransportAutoConfiguration.class,
				IdempotencyRedisFailureTypesAutoConfiguration.class))
			.run((context) -> {
				FailureClassifier classifier = context.getBean(FailureClassifier.class);
				assertThat(classifier.classify(new RuntimeException(new RedisCommandTimeoutException("timed out"))))
					.isEqualTo(FailureKind.INFRASTRUCTURE);
				assertThat(classifier.classify(new RuntimeException(new JedisConnectionException("refused"))))
					.isEqualTo(FailureKind.INFRASTRUCTURE);
			});
	}

	static class StreamOrderListener {

		// No stream container here: the method is called directly.
		@RedisStreamListener(id = "stream-orders", stream = "orders", group = "points")
		@Idempotent(key = "#p0")
		public void onOrder(String order) {
		}

	}

	static class NamespaceRecorder implements IdempotencyListener {

		final List<String> namespaces = new CopyOnWriteArrayList<>();

		@Override
		public void onOutcome(IdempotencyEvent event) {
			this.namespaces.add(event.namespace());
		}

	}

}
