package dev.idempotency.outbox.autoconfigure.metrics;

import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.outbox.OutboxListener;
import dev.idempotency.outbox.OutboxRelay;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration;
import dev.idempotency.outbox.metrics.MicrometerOutboxBacklogGauges;
import dev.idempotency.outbox.metrics.MicrometerOutboxListener;
import dev.idempotency.outbox.metrics.OutboxMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyOutboxMetricsAutoConfiguration} registers the outbox's meters next to a
 * {@code MeterRegistry}: the listener the relay is given (under the engine's meters' switches) and
 * the backlog gauges (with the outbox on), none of them with {@code idempotency.metrics.enabled=false}.
 */
class IdempotencyOutboxMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyOutboxMetricsAutoConfiguration.class));

	private final ApplicationContextRunner outboxContextRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.enabled=true",
				"idempotency.outbox.purge.interval=1h", "idempotency.outbox.relay.poll-interval=1h");

	@Test
	void listenerWithAMeterRegistry() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerOutboxListener.class).hasBean("micrometerOutboxListener");
			assertThat(context).doesNotHaveBean(MicrometerOutboxBacklogGauges.class);
		});
	}

	@Test
	void gaugesAndListenerWithAMeterRegistryAndTheOutbox() {
		this.outboxContextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerOutboxListener.class)
				.hasSingleBean(MicrometerOutboxBacklogGauges.class)
				.hasBean("outboxBacklogGauges");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(OutboxMeters.OUTBOX_BACKLOG).gauge().value()).isZero();
			assertThat(registry.get(OutboxMeters.OUTBOX_DEAD_BACKLOG).gauge().value()).isZero();
			assertThat(registry.get(OutboxMeters.OUTBOX_OLDEST_AGE).gauge().value()).isZero();
		});
	}

	@Test
	@SuppressWarnings("unchecked")
	void theRelayIsGivenTheListener() {
		this.outboxContextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			Object dispatcher = ReflectionTestUtils.getField(context.getBean(OutboxRelay.class), "dispatcher");
			Supplier<List<OutboxListener>> listeners = (Supplier<List<OutboxListener>>) ReflectionTestUtils
				.getField(dispatcher, "listeners");
			assertThat(listeners.get()).containsExactly(context.getBean(MicrometerOutboxListener.class));
		});
	}

	@Test
	void noMetersWithoutAMeterRegistry() {
		this.outboxContextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(MicrometerOutboxListener.class)
			.doesNotHaveBean(MicrometerOutboxBacklogGauges.class));
	}

	@Test
	void noMetersWithoutMicrometer() {
		this.outboxContextRunner.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(MicrometerOutboxListener.class)
				.doesNotHaveBean(MicrometerOutboxBacklogGauges.class));
	}

	@Test
	void metricsEnabledFalseSwitchesEveryMeterOff() {
		this.outboxContextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.metrics.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerOutboxListener.class)
				.doesNotHaveBean(MicrometerOutboxBacklogGauges.class));
	}

	@Test
	void noGaugesWhileTheOutboxIsOff() {
		this.outboxContextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.outbox.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(MicrometerOutboxListener.class)
				.doesNotHaveBean(MicrometerOutboxBacklogGauges.class));
	}

	@Test
	void disabledInterceptionHasNoListenerButTheOutboxKeepsItsGauges() {
		// As when the engine's listener recorded the outbox's counters: idempotency.enabled switches the
		// interception's meters off; the gauges follow the outbox's own switch.
		this.outboxContextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerOutboxListener.class)
				.hasSingleBean(MicrometerOutboxBacklogGauges.class));
	}

	@Test
	void applicationsOwnListenerWins() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withBean("ownListener", MicrometerOutboxListener.class,
					() -> new MicrometerOutboxListener(new SimpleMeterRegistry()))
			.run((context) -> assertThat(context).hasSingleBean(MicrometerOutboxListener.class)
				.hasBean("ownListener"));
	}

}
