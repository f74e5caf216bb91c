package dev.idempotency.metrics.autoconfigure;

import dev.idempotency.metrics.MicrometerIdempotencyListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyMetricsAutoConfiguration} wires the engine's meters: the listener that records
 * outcomes (with the interception on), only next to a {@code MeterRegistry}, and not with
 * {@code idempotency.metrics.enabled=false}. The outbox's and the Redis Stream adapter's meters have
 * tests of their own, beside their auto-configurations.
 */
class IdempotencyMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyMetricsAutoConfiguration.class));

	@Test
	void listenerRecordsInTheMeterRegistry() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.run((context) -> assertThat(context).hasSingleBean(MicrometerIdempotencyListener.class)
				.hasBean("micrometerIdempotencyListener"));
	}

	@Test
	void noMetersWithoutAMeterRegistry() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(MicrometerIdempotencyListener.class));
	}

	@Test
	void noMetersWithoutMicrometer() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(MicrometerIdempotencyListener.class));
	}

	@Test
	void metricsEnabledFalseSwitchesEveryMeterOff() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.metrics.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class));
	}

	@Test
	void disabledInterceptionHasNoListener() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class));
	}

	@Test
	void applicationsOwnListenerWins() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withBean("ownListener", MicrometerIdempotencyListener.class,
					() -> new MicrometerIdempotencyListener(new SimpleMeterRegistry()))
			.run((context) -> assertThat(context).hasSingleBean(MicrometerIdempotencyListener.class)
				.hasBean("ownListener"));
	}

}
