package dev.idempotency.redis.stream.autoconfigure.metrics;

import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamAutoConfiguration;
import dev.idempotency.redis.stream.metrics.MicrometerStreamConsumerListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyRedisStreamMetricsAutoConfiguration} registers the Redis Stream meters next to a
 * {@code MeterRegistry}, under the engine's meters' switches, as a {@link DeliveryListener} that the
 * listener containers are given.
 */
class IdempotencyRedisStreamMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyRedisStreamMetricsAutoConfiguration.class));

	@Test
	void listenerIsRegisteredWithAMeterRegistry() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.run((context) -> assertThat(context).hasSingleBean(MicrometerStreamConsumerListener.class)
				.hasBean("micrometerStreamConsumerListener"));
	}

	@Test
	void noListenerWithoutAMeterRegistry() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(MicrometerStreamConsumerListener.class));
	}

	@Test
	void noListenerWithoutMicrometer() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(MicrometerStreamConsumerListener.class));
	}

	@Test
	void noListenerWithoutTheRedisStreamApi() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withClassLoader(new FilteredClassLoader(MapRecord.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(MicrometerStreamConsumerListener.class));
	}

	@Test
	void metricsEnabledFalseSwitchesTheListenerOff() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.metrics.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerStreamConsumerListener.class));
	}

	@Test
	void disabledInterceptionHasNoListenerAsTheEngineMetersHaveNone() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerStreamConsumerListener.class));
	}

	@Test
	void applicationsOwnListenerWins() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withBean("ownListener", MicrometerStreamConsumerListener.class,
					() -> new MicrometerStreamConsumerListener(new SimpleMeterRegistry()))
			.run((context) -> assertThat(context).hasSingleBean(MicrometerStreamConsumerListener.class)
				.hasBean("ownListener"));
	}

	@Test
	@SuppressWarnings("unchecked")
	void listenerContainersAreGivenTheListener() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					IdempotencyRedisStreamAutoConfiguration.class))
			.run((context) -> {
				Supplier<List<DeliveryListener>> listeners = (Supplier<List<DeliveryListener>>) ReflectionTestUtils
					.getField(context.getBean(RedisStreamListenerRegistry.class), "listeners");
				assertThat(listeners.get())
					.containsExactly(context.getBean(MicrometerStreamConsumerListener.class));
			});
	}

}
