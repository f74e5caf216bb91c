package dev.idempotency.observation.autoconfigure;

import java.lang.reflect.Method;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.InvocationObserver;
import dev.idempotency.core.ObservedInvocation;
import dev.idempotency.core.TraceContextCapture;
import dev.idempotency.observation.MicrometerInvocationObserver;
import dev.idempotency.observation.MicrometerTraceContextCapture;
import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration;
import dev.idempotency.testsupport.W3cSimplePropagator;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyObservationAutoConfiguration}: the invocation observer next to Micrometer
 * Observation, the trace context capture next to Micrometer Tracing, the key-tag switch, both off
 * with {@code idempotency.observation.enabled=false}, user beans winning; and the outbox storing the
 * publisher's {@code traceparent} with its row.
 */
class IdempotencyObservationAutoConfigurationTests {

	private static final Method METHOD = IdempotencyObservationAutoConfigurationTests.class.getDeclaredMethods()[0];

	private final SimpleTracer tracer = new SimpleTracer();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyObservationAutoConfiguration.class));

	@Test
	void defaultsArePinned() {
		IdempotencyObservationProperties properties = new IdempotencyObservationProperties();
		assertThat(properties.isEnabled()).isTrue();
		assertThat(properties.isKeyTag()).isTrue();
	}

	@Test
	void observerAndCaptureWithObservationAndTracing() {
		this.contextRunner.withBean(ObservationRegistry.class, this::registry)
			.withBean(Tracer.class, () -> this.tracer)
			.run((context) -> {
				assertThat(context).hasSingleBean(MicrometerInvocationObserver.class)
					.hasSingleBean(MicrometerTraceContextCapture.class);
				assertThat(observeOneCall(context.getBean(InvocationObserver.class)).getTags())
					.containsEntry("idempotency.key", "order-1")
					.containsEntry("idempotency.outcome", "processed");
			});
	}

	@Test
	void keyTagCanBeSwitchedOff() {
		this.contextRunner.withBean(ObservationRegistry.class, this::registry)
			.withPropertyValues("idempotency.observation.key-tag=false")
			.run((context) -> assertThat(observeOneCall(context.getBean(InvocationObserver.class)).getTags())
				.doesNotContainKey("idempotency.key")
				.containsEntry("idempotency.outcome", "processed"));
	}

	@Test
	void withoutARegistryTheObserverObservesNothing() {
		this.contextRunner.run((context) -> assertThat(
				context.getBean(InvocationObserver.class).start("points", "jdbc", METHOD))
			.isSameAs(ObservedInvocation.NONE));
	}

	@Test
	void noCaptureWithoutMicrometerTracing() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer.tracing"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(MicrometerInvocationObserver.class)
				.doesNotHaveBean(TraceContextCapture.class));
	}

	@Test
	void nothingWithoutMicrometerObservation() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(InvocationObserver.class)
				.doesNotHaveBean(TraceContextCapture.class));
	}

	@Test
	void enabledFalseSwitchesBothOff() {
		this.contextRunner.withBean(ObservationRegistry.class, this::registry)
			.withBean(Tracer.class, () -> this.tracer)
			.withPropertyValues("idempotency.observation.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(InvocationObserver.class)
				.doesNotHaveBean(TraceContextCapture.class));
	}

	@Test
	void userBeansWin() {
		this.contextRunner.withBean(InvocationObserver.class, () -> InvocationObserver.NONE)
			.withBean(TraceContextCapture.class, () -> TraceContextCapture.NONE)
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerInvocationObserver.class)
				.doesNotHaveBean(MicrometerTraceContextCapture.class));
	}

	@Test
	void outboxStoresThePublishersTraceparent() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
					IdempotencyOutboxAutoConfiguration.class))
			.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.enabled=true",
					"idempotency.outbox.purge.interval=1h", "idempotency.outbox.relay.enabled=false")
			.withBean(Tracer.class, () -> this.tracer)
			.withBean(Propagator.class, () -> new W3cSimplePropagator(this.tracer))
			.run((context) -> {
				Outbox outbox = context.getBean(Outbox.class);
				TransactionTemplate transaction = new TransactionTemplate(
						context.getBean(PlatformTransactionManager.class));
				SimpleSpan span = this.tracer.nextSpan().name("place order").start();
				try (Tracer.SpanInScope scope = this.tracer.withSpan(span)) {
					transaction.executeWithoutResult((status) -> outbox.publish("kafka:orders", "o-1", "traced"));
				}
				finally {
					span.end();
				}
				transaction.executeWithoutResult((status) -> outbox.publish("kafka:orders", "o-2", "untraced"));
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				assertThat(jdbc.queryForList("SELECT traceparent FROM idempotency_outbox ORDER BY id", String.class))
					.containsExactly("00-0000000000000000" + span.context().traceId() + "-" + span.context().spanId()
							+ "-01", null);
			});
	}

	private ObservationRegistry registry() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(this.tracer));
		return registry;
	}

	private SimpleSpan observeOneCall(InvocationObserver observer) {
		ObservedInvocation observed = observer.start("points", "jdbc", METHOD);
		observed.stop(List.of(new IdempotencyKey("points", "order-1")), List.of(IdempotencyOutcome.PROCESSED), null);
		return this.tracer.onlySpan();
	}

}
