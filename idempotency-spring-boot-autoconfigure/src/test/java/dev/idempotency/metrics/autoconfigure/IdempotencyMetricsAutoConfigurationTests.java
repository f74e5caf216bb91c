package dev.idempotency.metrics.autoconfigure;

import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.metrics.MicrometerIdempotencyListener;
import dev.idempotency.metrics.MicrometerOutboxBacklogGauges;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyMetricsAutoConfiguration} wires every meter of the starter: the listener that
 * records outcomes (with the interception on) and the outbox backlog gauges (with the outbox on),
 * only next to a {@code MeterRegistry}, and none of them with {@code idempotency.metrics.enabled=false}.
 */
class IdempotencyMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyMetricsAutoConfiguration.class));

	private final ApplicationContextRunner outboxContextRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.enabled=true",
				"idempotency.outbox.purge.interval=1h", "idempotency.outbox.relay.poll-interval=1h");

	@Test
	void listenerRecordsInTheMeterRegistry() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerIdempotencyListener.class)
				.hasBean("micrometerIdempotencyListener");
			assertThat(context).doesNotHaveBean(MicrometerOutboxBacklogGauges.class);
		});
	}

	@Test
	void outboxGaugesAndListenerWithAMeterRegistryAndTheOutbox() {
		this.outboxContextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerIdempotencyListener.class)
				.hasSingleBean(MicrometerOutboxBacklogGauges.class)
				.hasBean("outboxBacklogGauges");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(IdempotencyMeters.OUTBOX_BACKLOG).gauge().value()).isZero();
		});
	}

	@Test
	void noMetersWithoutAMeterRegistry() {
		this.outboxContextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(MicrometerIdempotencyListener.class)
			.doesNotHaveBean(MicrometerOutboxBacklogGauges.class));
	}

	@Test
	void noMetersWithoutMicrometer() {
		this.outboxContextRunner.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(MicrometerIdempotencyListener.class)
				.doesNotHaveBean(MicrometerOutboxBacklogGauges.class));
	}

	@Test
	void metricsEnabledFalseSwitchesEveryMeterOff() {
		this.outboxContextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.metrics.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class)
				.doesNotHaveBean(MicrometerOutboxBacklogGauges.class));
	}

	@Test
	void noGaugesWhileTheOutboxIsOff() {
		this.outboxContextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.outbox.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(MicrometerIdempotencyListener.class)
				.doesNotHaveBean(MicrometerOutboxBacklogGauges.class));
	}

	@Test
	void disabledInterceptionHasNoListenerButTheOutboxKeepsItsGauges() {
		// idempotency.enabled switches the interception off, not the outbox, which has its own switch.
		this.outboxContextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class)
				.hasSingleBean(MicrometerOutboxBacklogGauges.class));
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
