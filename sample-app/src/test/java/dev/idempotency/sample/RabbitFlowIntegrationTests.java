package dev.idempotency.sample;

import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo with its RabbitMQ flow on the local RabbitMQ (localhost:5672, guest/guest) next to the
 * Kafka flow: the outbox relay publishes every order event to the run's exchange with confirms,
 * {@code @Idempotent @RabbitListener} credits every order exactly once and skips the re-sent ones,
 * and the poison, keyless and malformed messages end on the run's dead-letter queue. Also the
 * start-up probe that skips the flow when RabbitMQ does not answer.
 */
@SpringBootTest(properties = { "demo.orders=300", "demo.rabbit.enabled=true", "demo.redis-stream.enabled=false",
		"spring.datasource.url=jdbc:h2:mem:points-rabbit;DB_CLOSE_DELAY=-1" })
class RabbitFlowIntegrationTests {

	private static final int MAX_ATTEMPTS = 3;

	@Autowired
	private DemoRunner runner;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private RabbitFlow flow;

	@Autowired
	private RabbitTemplate rabbit;

	@Test
	void everyOrderIsCreditedExactlyOnceThroughRabbitMq() {
		DemoOrders orders = this.runner.orders();
		assertThat(orders).isNotNull();
		long eventsPerFlow = orders.unique().size() + orders.duplicates().size();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'"
				+ " AND destination LIKE 'rabbit:%'", Long.class)).isEqualTo(eventsPerFlow);
		Map<String, Long> expectedPointsByOrder = orders.unique()
			.stream()
			.collect(Collectors.toMap(OrderPlaced::orderId, OrderPlaced::points));
		assertThat(this.jdbc
			.query("SELECT order_id, points FROM points_ledger WHERE flow = ?",
					(rs, row) -> Map.entry(rs.getString(1), rs.getLong(2)), RabbitPointsService.FLOW)
			.stream()
			.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue))).isEqualTo(expectedPointsByOrder);
		assertThat(invocations("processed")).isEqualTo(orders.unique().size());
		// At least once: a delivery the broker hands out again (its channel closed before the ack) is
		// skipped as a duplicate too.
		assertThat(invocations("duplicate")).isGreaterThanOrEqualTo(orders.duplicates().size());
		assertThat(this.runner.report()).isNotNull().satisfies((report) -> {
			assertThat(report.flows()).hasSize(2);
			assertThat(report.flow("RabbitMQ").creditedOncePerOrder()).isTrue();
			assertThat(report.toString()).contains("RabbitMQ (exchange " + RabbitFlow.exchange(this.flow.queue()));
			assertThat(this.runner.getExitCode()).isZero();
		});
	}

	@Test
	void poisonKeylessAndMalformedMessagesEndOnTheDeadLetterQueue() {
		DemoOrders orders = this.runner.orders();
		long expected = orders.poison().size() + orders.invalid().size() + orders.malformed();
		assertThat(invocations("failed")).isEqualTo((long) orders.poison().size() * MAX_ATTEMPTS);
		assertThat(invocations("rejected")).isEqualTo(orders.invalid().size());
		RabbitAdmin admin = new RabbitAdmin(this.rabbit);
		Properties queue = admin.getQueueProperties(this.flow.queue());
		assertThat(((Number) queue.get(RabbitAdmin.QUEUE_MESSAGE_COUNT)).longValue()).as("messages left in the queue")
			.isZero();
		assertThat(this.runner.report().flow("RabbitMQ").deadLettered()).isEqualTo(expected);
		String deadLetterQueue = RabbitFlow.deadLetterQueue(this.flow.queue());
		for (int i = 0; i < expected; i++) {
			Message deadLetter = this.rabbit.receive(deadLetterQueue, 5000);
			assertThat(deadLetter).as("dead letter %d of %d", i + 1, expected).isNotNull();
		}
	}

	@Test
	void theFlowIsSkippedWhenRabbitMqDoesNotAnswer() {
		assertThat(decided(1)).as("port 1 answers nothing").containsEntry(RabbitFlow.ENABLED, false);
		assertThat(decided(5672)).as("the local RabbitMQ").containsEntry(RabbitFlow.ENABLED, true);
	}

	private static Map<String, Object> decided(int port) {
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("test", Map.of("spring.rabbitmq.host", "127.0.0.1",
						"spring.rabbitmq.port", port)));
			new RabbitDemoInitializer().initialize(context);
			MapPropertySource decided = (MapPropertySource) context.getEnvironment()
				.getPropertySources()
				.get("rabbitDemo");
			return decided.getSource();
		}
	}

	private long invocations(String outcome) {
		return this.meters.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, RabbitFlow.NAMESPACE)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

}
