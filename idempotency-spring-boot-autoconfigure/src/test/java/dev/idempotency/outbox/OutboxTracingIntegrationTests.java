package dev.idempotency.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestKafkaBrokers;
import dev.idempotency.testsupport.W3cSimplePropagator;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * End to end with Micrometer's test tracer, on PostgreSQL and an in-process Kafka broker: an order
 * placed inside a span is published through the outbox (its row carries the span's
 * {@code traceparent}), the relay sends it as the {@code traceparent} header, and on the consumer
 * spring-kafka's listener observation ({@code spring.kafka.listener.observation-enabled}) continues
 * the producer's trace, with the {@code idempotency.invocation} span as its child and the listener
 * method running inside it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutboxTracingIntegrationTests {

	private static final String TOPIC = "outbox-tracing-orders";

	private static final String NAMESPACE = "points-traced:points-traced";

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	private SimpleTracer tracer;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic(TOPIC, 1, (short) 1));
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.listener.observation-enabled=true",
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.outbox.enabled=true", "idempotency.outbox.initialize-schema=always",
				"idempotency.outbox.relay.poll-interval=50ms"));
		this.context = new SpringApplicationBuilder(TracedApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.tracer = this.context.getBean(SimpleTracer.class);
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
		this.broker.destroy();
	}

	@Test
	void listenerSpanContinuesTheTraceOfTheTransactionThatPublished() {
		OrderService orders = this.context.getBean(OrderService.class);
		PointsService points = this.context.getBean(PointsService.class);
		SimpleSpan placeOrder = this.tracer.nextSpan().name("place order").start();
		try (Tracer.SpanInScope scope = this.tracer.withSpan(placeOrder)) {
			orders.placeOrder("order-traced");
		}
		finally {
			placeOrder.end();
		}
		String traceId = placeOrder.context().traceId();

		// The row carries the publisher's trace context.
		assertThat(this.jdbc.queryForObject("SELECT traceparent FROM idempotency_outbox WHERE message_key = ?",
				String.class, "order-traced"))
			.isEqualTo("00-0000000000000000" + traceId + "-" + placeOrder.context().spanId() + "-01");

		await().atMost(30, TimeUnit.SECONDS).until(() -> points.seen().containsKey("order-traced"));
		Span inListener = points.seen().get("order-traced");
		assertThat(inListener.context().traceId()).as("trace seen inside the listener method").isEqualTo(traceId);

		await().atMost(10, TimeUnit.SECONDS).until(() -> finished(inListener.context().spanId()) != null);
		SimpleSpan invocation = finished(inListener.context().spanId());
		assertThat(invocation.getName()).isEqualTo(NAMESPACE + " idempotent");
		assertThat(invocation.getTags()).containsEntry("idempotency.namespace", NAMESPACE)
			.containsEntry("idempotency.outcome", "processed")
			.containsEntry("idempotency.store", "jdbc")
			.containsEntry("idempotency.key", this.jdbc.queryForObject(
					"SELECT message_id FROM idempotency_outbox WHERE message_key = ?", String.class, "order-traced"));
		SimpleSpan listener = finished(invocation.getParentId());
		assertThat(listener).as("parent of the invocation span").isNotNull();
		assertThat(listener.getKind()).isEqualTo(Span.Kind.CONSUMER);
		assertThat(listener.getTraceId()).isEqualTo(traceId);
		assertThat(listener.getParentId()).as("the listener's parent is the publishing span")
			.isEqualTo(placeOrder.context().spanId());
	}

	@Test
	void messagePublishedOutsideASpanIsStoredWithoutATraceparentAndStillConsumed() {
		OrderService orders = this.context.getBean(OrderService.class);
		PointsService points = this.context.getBean(PointsService.class);
		orders.placeOrder("order-untraced");

		assertThat(this.jdbc.queryForObject("SELECT traceparent FROM idempotency_outbox WHERE message_key = ?",
				String.class, "order-untraced"))
			.isNull();
		await().atMost(30, TimeUnit.SECONDS).until(() -> points.seen().containsKey("order-untraced"));
	}

	private SimpleSpan finished(String spanId) {
		return this.tracer.getSpans()
			.stream()
			.filter((span) -> spanId.equals(span.getSpanId()) && !span.getEndTimestamp().equals(java.time.Instant.EPOCH))
			.findFirst()
			.orElse(null);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableTransactionManagement
	static class TracedApplication {

		@Bean
		SimpleTracer tracer() {
			return new SimpleTracer();
		}

		@Bean
		W3cSimplePropagator propagator(SimpleTracer tracer) {
			return new W3cSimplePropagator(tracer);
		}

		/** What Boot's tracing auto-configuration does with a bridge: spans for observations, W3C headers. */
		@Bean
		ObservationRegistry observationRegistry(SimpleTracer tracer, Propagator propagator) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig()
				.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
						new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
						new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
						new DefaultTracingObservationHandler(tracer)));
			return registry;
		}

		@Bean
		OrderService orderService(JdbcTemplate jdbc, Outbox outbox) {
			// Every row, not only this test's: the relay would first work through what an earlier test
			// left behind (OutboxRelayPostgresIntegrationTests leaves 9,900 pending rows to 'orders').
			jdbc.update("DELETE FROM idempotency_outbox");
			return new OrderService(outbox);
		}

		@Bean
		PointsService pointsService(JdbcTemplate jdbc, Tracer tracer) {
			jdbc.update("DELETE FROM idempotency_record WHERE namespace = ?", NAMESPACE);
			return new PointsService(tracer);
		}

	}

	static class OrderService {

		private final Outbox outbox;

		OrderService(Outbox outbox) {
			this.outbox = outbox;
		}

		@Transactional
		public void placeOrder(String orderId) {
			this.outbox.publish("kafka:" + TOPIC, orderId, Map.of("orderId", orderId));
		}

	}

	/** Records the span current inside the listener method, per order. */
	static class PointsService {

		private final Map<String, Span> seen = new ConcurrentHashMap<>();

		private final Tracer tracer;

		PointsService(Tracer tracer) {
			this.tracer = tracer;
		}

		/** The spans seen, by order id; a method, as the bean is a class proxy. */
		public Map<String, Span> seen() {
			return this.seen;
		}

		@KafkaListener(id = "points-traced", topics = TOPIC, groupId = "points-traced")
		@Idempotent
		public void onOrderPlaced(org.apache.kafka.clients.consumer.ConsumerRecord<String, String> record) {
			Span current = this.tracer.currentSpan();
			this.seen.put(record.key(), (current != null) ? current : Span.NOOP);
		}

	}

}
