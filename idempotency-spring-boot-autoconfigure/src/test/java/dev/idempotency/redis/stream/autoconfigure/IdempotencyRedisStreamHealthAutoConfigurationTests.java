package dev.idempotency.redis.stream.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyRedisStreamHealthAutoConfiguration} on its own, without the starter's other
 * health indicators: {@code idempotencyStreams} under the conditions it had beside them (the health
 * module, the stream adapter running, Actuator's switch, a bean of the same name). No stream listener
 * is declared, so nothing connects to Redis.
 */
class IdempotencyRedisStreamHealthAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				IdempotencyRedisStreamAutoConfiguration.class, IdempotencyRedisStreamHealthAutoConfiguration.class));

	@Test
	void theIndicatorWithItsThreshold() {
		this.contextRunner.withPropertyValues("idempotency.health.streams.inactive-threshold=5s")
			.run((context) -> {
				assertThat(context).hasSingleBean(IdempotencyStreamsHealthIndicator.class)
					.hasBean("idempotencyStreamsHealthIndicator");
				assertThat(context.getBean(IdempotencyStreamsHealthIndicator.class).health().getDetails())
					.containsEntry("inactiveThreshold", 5_000L);
			});
	}

	@Test
	void backsOffWithActuatorsSwitchOrABeanOfTheSameName() {
		this.contextRunner.withPropertyValues("management.health.idempotencystreams.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyStreamsHealthIndicator.class));
		HealthIndicator own = () -> Health.up().build();
		this.contextRunner.withBean("idempotencyStreamsHealthIndicator", HealthIndicator.class, () -> own)
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyStreamsHealthIndicator.class)
				.getBean("idempotencyStreamsHealthIndicator")
				.isSameAs(own));
	}

	@Test
	void backsOffWithoutTheStreamAdapterOrTheHealthModule() {
		this.contextRunner.withPropertyValues("idempotency.redis.stream.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyStreamsHealthIndicator.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthContributor.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyStreamsHealthIndicator.class));
	}

}
