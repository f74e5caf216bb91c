package dev.idempotency.outbox.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyOutboxHealthAutoConfiguration} on its own, without the starter's other health
 * indicators: {@code idempotencyOutbox} under the conditions it had beside them (the health module,
 * the outbox enabled, Actuator's switch, a bean of the same name), on H2.
 */
class IdempotencyOutboxHealthAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class, IdempotencyOutboxHealthAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.purge.interval=1h",
				"idempotency.outbox.relay.enabled=false", "idempotency.outbox.enabled=true");

	@Test
	void theIndicatorWithItsThresholds() {
		this.contextRunner.withPropertyValues("idempotency.health.outbox.max-backlog=7").run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyOutboxHealthIndicator.class)
				.hasBean("idempotencyOutboxHealthIndicator");
			Health health = context.getBean(IdempotencyOutboxHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("maxBacklog", 7L);
		});
	}

	@Test
	void backsOffWithActuatorsSwitchOrABeanOfTheSameName() {
		this.contextRunner.withPropertyValues("management.health.idempotencyoutbox.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyOutboxHealthIndicator.class));
		HealthIndicator own = () -> Health.up().build();
		this.contextRunner.withBean("idempotencyOutboxHealthIndicator", HealthIndicator.class, () -> own)
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyOutboxHealthIndicator.class)
				.getBean("idempotencyOutboxHealthIndicator")
				.isSameAs(own));
	}

	@Test
	void backsOffWithoutTheOutboxOrTheHealthModule() {
		this.contextRunner.withPropertyValues("idempotency.outbox.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyOutboxHealthIndicator.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthContributor.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyOutboxHealthIndicator.class));
	}

}
