package dev.idempotency.redis.stream.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.redis.stream.JacksonRedisStreamPayloadConverter;
import dev.idempotency.redis.stream.RedisStreamListenerAnnotationBeanPostProcessor;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import dev.idempotency.redis.stream.RedisStreamPayloadConverter;
import dev.idempotency.redis.stream.RedisStreamSettings;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Conditions and settings of {@link IdempotencyRedisStreamAutoConfiguration}. No listener method is
 * declared, so nothing connects to Redis.
 */
class IdempotencyRedisStreamAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataRedisAutoConfiguration.class, IdempotencyRedisStreamAutoConfiguration.class));

	@Test
	void registryBeanPostProcessorAndJsonConverterAreProvidedWithRedis() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(RedisStreamListenerRegistry.class)
			.hasSingleBean(RedisStreamListenerAnnotationBeanPostProcessor.class)
			.getBean(RedisStreamPayloadConverter.class)
			.isInstanceOf(JacksonRedisStreamPayloadConverter.class));
	}

	@Test
	void propertiesReachTheListenerSettings() {
		this.contextRunner
			.withPropertyValues("idempotency.redis.stream.concurrency=3", "idempotency.redis.stream.batch-size=50",
					"idempotency.redis.stream.poll-timeout=500ms", "idempotency.redis.stream.min-idle=2m",
					"idempotency.redis.stream.claim-interval=10s", "idempotency.redis.stream.max-deliveries=7",
					"idempotency.redis.stream.dead-letter.suffix=-dead",
					"idempotency.redis.stream.recovery-back-off=250ms", "idempotency.redis.stream.payload-field=body")
			.run((context) -> assertThat(context.getBean(RedisStreamListenerRegistry.class).getSettings())
				.isEqualTo(new RedisStreamSettings(3, 50, Duration.ofMillis(500), Duration.ofMinutes(2),
						Duration.ofSeconds(10), 7, "-dead", Duration.ofMillis(250), "body", false)));
	}

	@Test
	void transactionBatchingIsOffByDefault() {
		this.contextRunner.run((context) -> assertThat(
				context.getBean(RedisStreamListenerRegistry.class).getSettings().transactionBatching())
			.isFalse());
	}

	@Test
	void transactionBatchingPropertyReachesTheListenerSettings() {
		this.contextRunner.withPropertyValues("idempotency.redis.stream.transaction-batching.enabled=true")
			.run((context) -> assertThat(
					context.getBean(RedisStreamListenerRegistry.class).getSettings().transactionBatching())
				.isTrue());
	}

	@Test
	void applicationRegistryWins() {
		this.contextRunner
			.withBean("myRegistry", RedisStreamListenerRegistry.class,
					() -> new RedisStreamListenerRegistry(new RedisStreamListenerAnnotationBeanPostProcessor(),
							mock(RedisConnectionFactory.class),
							new RedisStreamSettings(1, 1, Duration.ofSeconds(1), Duration.ofSeconds(1),
									Duration.ofSeconds(1), 1, ".dlq", Duration.ofSeconds(1), "payload", false),
							null, List::of, null))
			.run((context) -> assertThat(context).hasSingleBean(RedisStreamListenerRegistry.class)
				.hasBean("myRegistry"));
	}

	@Test
	void applicationPayloadConverterWins() {
		RedisStreamPayloadConverter own = (payload, type) -> payload;
		this.contextRunner.withBean(RedisStreamPayloadConverter.class, () -> own)
			.run((context) -> assertThat(context.getBean(RedisStreamPayloadConverter.class)).isSameAs(own));
	}

	@Test
	void switchedOffByProperty() {
		this.contextRunner.withPropertyValues("idempotency.redis.stream.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisStreamListenerRegistry.class)
				.doesNotHaveBean(RedisStreamListenerAnnotationBeanPostProcessor.class));
	}

	@Test
	void streamListenersKeepConsumingWhenIdempotencyIsSwitchedOff() {
		this.contextRunner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(RedisStreamListenerRegistry.class)
				.hasSingleBean(RedisStreamListenerAnnotationBeanPostProcessor.class));
	}

	@Test
	void backsOffWithoutARedisConnectionFactory() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(IdempotencyRedisStreamAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisStreamListenerRegistry.class)
				.doesNotHaveBean(RedisStreamListenerAnnotationBeanPostProcessor.class));
	}

	@Test
	void backsOffWithoutTheStreamApiOfSpringDataRedis() {
		// With a RedisConnectionFactory: only the missing class can make it back off.
		this.contextRunner.withClassLoader(new FilteredClassLoader(MapRecord.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisConnectionFactory.class)
				.doesNotHaveBean(RedisStreamListenerRegistry.class)
				.doesNotHaveBean(RedisStreamListenerAnnotationBeanPostProcessor.class));
	}

	@Test
	void startsWithoutJacksonAndWithoutAJsonConverter() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JsonMapper.class))
			.run((context) -> assertThat(context).hasSingleBean(RedisStreamListenerRegistry.class)
				.doesNotHaveBean(RedisStreamPayloadConverter.class));
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void startUpOnAClusterWithARedisStoreSaysWhereTheCompletionIsOneScript(CapturedOutput output) {
		this.contextRunner.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:7001,127.0.0.1:7002")
			.withBean(IdempotencyStore.class,
					() -> new RedisIdempotencyStore(mock(StringRedisTemplate.class), "idempotency:"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("Redis Cluster with a Redis idempotency store")
					.contains("the stream name and idempotency.redis.key-prefix carry the same hash tag")
					.contains("Other keys are completed, then acknowledged, in two steps");
			});
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void startUpSaysNothingOfClustersOnAStandaloneRedisOrWithAnotherStore(CapturedOutput output) {
		this.contextRunner
			.withBean(IdempotencyStore.class,
					() -> new RedisIdempotencyStore(mock(StringRedisTemplate.class), "idempotency:"))
			.run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:7001,127.0.0.1:7002")
			.withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("Redis Cluster with a Redis idempotency store");
	}

}
