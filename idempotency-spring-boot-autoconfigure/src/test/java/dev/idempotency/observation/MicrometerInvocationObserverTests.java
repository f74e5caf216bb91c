package dev.idempotency.observation;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.InvocationObserver;
import dev.idempotency.core.ObservedInvocation;
import dev.idempotency.support.IdempotencyDefaults;
import dev.idempotency.support.IdempotencyInterceptor;
import dev.idempotency.support.IdempotentAdvisor;
import dev.idempotency.support.InMemoryIdempotencyStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link MicrometerInvocationObserver} behind a real {@link IdempotencyInterceptor}, with
 * Micrometer's {@link SimpleTracer} as the tracer: one span per call, its tags, its parent, the
 * method running inside it, and when it ends.
 */
class MicrometerInvocationObserverTests {

	private static final IdempotencyDefaults DEFAULTS = new IdempotencyDefaults(Duration.ofDays(7),
			Duration.ofMinutes(5), Duration.ZERO, true, null, false);

	private final SimpleTracer tracer = new SimpleTracer();

	private final ObservationRegistry registry = ObservationRegistry.create();

	private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

	private final Orders target = new Orders(this.tracer);

	MicrometerInvocationObserverTests() {
		this.registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(this.tracer));
	}

	@AfterEach
	void clearDelivery() {
		DeliveryContextHolder.clear();
	}

	@Test
	void processedCallIsOneSpanTaggedWithNamespaceOutcomeStoreAndKey() {
		orders(true, null).onOrder("o-1");

		SimpleSpan span = this.tracer.onlySpan();
		assertThat(span.getName()).isEqualTo("Orders#onOrder idempotent");
		assertThat(span.getTags()).containsEntry("idempotency.namespace", "Orders#onOrder")
			.containsEntry("idempotency.outcome", "processed")
			.containsEntry("idempotency.store", this.store.name())
			.containsEntry("idempotency.key", "o-1");
		assertThat(span.getEndTimestamp()).isAfter(Instant.EPOCH);
		assertThat(span.getError()).isNull();
	}

	@Test
	void duplicateIsTaggedDuplicate() {
		Orders orders = orders(true, null);
		orders.onOrder("o-1");
		orders.onOrder("o-1");

		assertThat(this.tracer.getSpans()).extracting((span) -> span.getTags().get("idempotency.outcome"))
			.containsExactly("processed", "duplicate");
		assertThat(this.target.handled).containsExactly("o-1");
	}

	@Test
	void keyTagCanBeSwitchedOff() {
		orders(false, null).onOrder("o-1");

		assertThat(this.tracer.onlySpan().getTags()).doesNotContainKey("idempotency.key")
			.containsEntry("idempotency.outcome", "processed");
	}

	@Test
	void methodRunsInsideTheSpan() {
		orders(true, null).onOrder("o-1");

		SimpleSpan span = this.tracer.onlySpan();
		assertThat(this.target.spanIds).containsExactly(span.getSpanId());
	}

	@Test
	void spanIsAChildOfTheCurrentObservation() {
		Orders orders = orders(true, null);
		Observation listener = Observation.start("listener", this.registry);
		try (Observation.Scope scope = listener.openScope()) {
			orders.onOrder("o-1");
		}
		listener.stop();

		List<SimpleSpan> spans = List.copyOf(this.tracer.getSpans());
		assertThat(spans).hasSize(2);
		SimpleSpan parent = spans.get(0);
		SimpleSpan child = spans.get(1);
		assertThat(child.getName()).isEqualTo("Orders#onOrder idempotent");
		assertThat(child.getTraceId()).isEqualTo(parent.getTraceId());
		assertThat(child.getParentId()).isEqualTo(parent.getSpanId());
		assertThat(this.tracer.currentSpan()).as("no span left current").isNull();
	}

	@Test
	void failedCallEndsTheSpanWithItsException() {
		assertThatIllegalStateException().isThrownBy(() -> orders(true, null).onOrder("fail"));

		SimpleSpan span = this.tracer.onlySpan();
		assertThat(span.getTags()).containsEntry("idempotency.outcome", "failed");
		assertThat(span.getError()).isInstanceOf(IllegalStateException.class);
	}

	@Test
	void keyThatCannotBeResolvedIsRejectedWithoutAKeyTag() {
		DeliveryContextHolder.set(new DeliveryContext(null, null, Map.of(), null, List.of()));
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> orders(true, null).onMessage("payload"));

		SimpleSpan span = this.tracer.onlySpan();
		assertThat(span.getTags()).containsEntry("idempotency.outcome", "rejected")
			.doesNotContainKey("idempotency.key");
		assertThat(span.getError()).isInstanceOf(InvalidIdempotencyKeyException.class);
	}

	@Test
	void spanOfACallInAJoinedTransactionEndsWhenThatTransactionCompletes() {
		DriverManagerDataSource dataSource = new DriverManagerDataSource(
				"jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
		DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(dataSource);
		Orders orders = orders(true, transactionManager);

		new TransactionTemplate(transactionManager).executeWithoutResult((status) -> {
			orders.onOrder("o-1");
			assertThat(this.tracer.getSpans()).singleElement()
				.satisfies((span) -> assertThat(span.getEndTimestamp()).as("ended before the outer commit")
					.isEqualTo(Instant.EPOCH));
		});

		SimpleSpan span = this.tracer.onlySpan();
		assertThat(span.getEndTimestamp()).isAfter(Instant.EPOCH);
		assertThat(span.getTags()).containsEntry("idempotency.outcome", "processed");
	}

	@Test
	void registryWithoutHandlersCreatesNothing() {
		InvocationObserver observer = new MicrometerInvocationObserver(ObservationRegistry.create(), null,
				new DefaultIdempotencyObservationConvention());
		assertThat(observer.start("n", "s", Orders.class.getMethods()[0])).isSameAs(ObservedInvocation.NONE);
		assertThat(new MicrometerInvocationObserver(ObservationRegistry.NOOP, null,
				new DefaultIdempotencyObservationConvention())
			.start("n", "s", Orders.class.getMethods()[0])).isSameAs(ObservedInvocation.NONE);
	}

	@Test
	void customConventionReplacesTheDefault() {
		IdempotencyObservationConvention custom = new DefaultIdempotencyObservationConvention() {

			@Override
			public String getContextualName(IdempotencyObservationContext context) {
				return "custom " + context.getMethod().getName();
			}

		};
		proxy(new MicrometerInvocationObserver(this.registry, custom, new DefaultIdempotencyObservationConvention()),
				null).onOrder("o-1");

		assertThat(this.tracer.onlySpan().getName()).isEqualTo("custom onOrder");
	}

	private Orders orders(boolean keyTag, @Nullable PlatformTransactionManager transactionManager) {
		return proxy(new MicrometerInvocationObserver(this.registry, null,
				new DefaultIdempotencyObservationConvention(keyTag)), transactionManager);
	}

	private Orders proxy(InvocationObserver observer, @Nullable PlatformTransactionManager transactionManager) {
		IdempotencyInterceptor interceptor = IdempotencyInterceptor
			.builder(DEFAULTS, (name) -> this.store, (store) -> transactionManager)
			.observer(() -> observer)
			.build();
		ProxyFactory factory = new ProxyFactory(this.target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new IdempotentAdvisor(() -> interceptor, 0));
		return (Orders) factory.getProxy();
	}

	static class Orders {

		final List<String> handled = new CopyOnWriteArrayList<>();

		final List<String> spanIds = new CopyOnWriteArrayList<>();

		private final SimpleTracer tracer;

		Orders(SimpleTracer tracer) {
			this.tracer = tracer;
		}

		@Idempotent(key = "#orderId")
		public void onOrder(String orderId) {
			if (this.tracer.currentSpan() != null) {
				this.spanIds.add(this.tracer.currentSpan().getSpanId());
			}
			if ("fail".equals(orderId)) {
				throw new IllegalStateException("payment declined");
			}
			this.handled.add(orderId);
		}

		@Idempotent
		public void onMessage(String payload) {
			this.handled.add(payload);
		}

	}

}
