package dev.idempotency.outbox;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.metrics.OutboxMeters;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestKafkaBrokers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * End to end, on PostgreSQL and an in-process Kafka broker, everything auto-configured: an order
 * service writes orders and publishes through the outbox; the relay dies after the broker's
 * acknowledgement and before marking the rows sent; once the lease has passed the rows are sent
 * again with the same message ids, and the {@code @Idempotent} points service downstream (JDBC
 * dedup store, key = the {@code message-id} header) credits each order once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutboxEndToEndIntegrationTests {

	/** The listener's default namespace: its group, then its listener id. */
	private static final String NAMESPACE = "points-outbox:points-outbox";


	private static final String TOPIC = "outbox-e2e-orders";

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 2));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic(TOPIC, 2, (short) 1));
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.producer.acks=all",
				"spring.kafka.producer.properties.enable.idempotence=true", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.outbox.enabled=true",
				"idempotency.outbox.initialize-schema=always", "idempotency.outbox.relay.poll-interval=50ms",
				"idempotency.outbox.relay.lease=3s", "idempotency.outbox.relay.send-timeout=2s"));
		this.context = new SpringApplicationBuilder(OrderAndPointsApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
		this.broker.destroy();
	}

	@Test
	void relayKilledAfterTheBrokerAckResendsWithTheSameMessageIdAndTheConsumerAppliesItOnce() {
		InterceptingOutboxRepository repository = this.context.getBean(InterceptingOutboxRepository.class);
		AtomicBoolean killed = new AtomicBoolean();
		List<String> ackedBeforeTheKill = new ArrayList<>();
		// The rows of the killed batch, with the lease of the claim that sent them.
		Map<String, Instant> killedClaims = new ConcurrentHashMap<>();
		repository.setBeforeMarkSent((sent) -> {
			if (!sent.isEmpty() && killed.compareAndSet(false, true)) {
				sent.forEach((message) -> {
					ackedBeforeTheKill.add(message.messageId());
					if (message.claimedUntil() != null) {
						killedClaims.put(message.messageId(), message.claimedUntil());
					}
				});
			}
			// A killed relay marks nothing of that claim, not even when it retries the mark on its own (after
			// a failed mark-and-claim); the claim that sends the rows again, after the lease, marks them.
			if (sent.stream().anyMatch((message) -> message.claimedUntil() != null
					&& message.claimedUntil().equals(killedClaims.get(message.messageId())))) {
				throw new IllegalStateException("relay killed after the broker ack, before marking the rows sent");
			}
		});
		OrderService orders = this.context.getBean(OrderService.class);
		for (int i = 1; i <= 10; i++) {
			orders.placeOrder("order-" + i, i * 10);
		}

		await().atMost(60, TimeUnit.SECONDS)
			.until(() -> this.jdbc.queryForObject(
					"SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT' AND message_key LIKE 'order-%'",
					Integer.class) == 10);
		assertThat(killed).isTrue();
		assertThat(ackedBeforeTheKill).isNotEmpty();
		int resent = ackedBeforeTheKill.size();
		await().atMost(30, TimeUnit.SECONDS).until(() -> meter("duplicate") >= resent);

		// The broker holds each re-sent message twice, with one message id.
		List<ConsumerRecord<String, String>> records = OutboxTestSenders.readTopic(this.broker.getBrokersAsString(),
				TOPIC, 10 + resent, java.time.Duration.ofSeconds(20));
		Map<String, Long> perMessageId = records.stream()
			.collect(Collectors.groupingBy(OutboxTestSenders::messageId, Collectors.counting()));
		assertThat(perMessageId).hasSize(10);
		ackedBeforeTheKill.forEach((id) -> assertThat(perMessageId).containsEntry(id, 2L));
		// The points service applied every order once.
		assertThat(this.jdbc.queryForList(
				"SELECT order_id FROM outbox_e2e_points GROUP BY order_id HAVING COUNT(*) > 1", String.class))
			.isEmpty();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM outbox_e2e_points", Integer.class)).isEqualTo(10);
		assertThat(this.jdbc.queryForObject("SELECT SUM(points) FROM outbox_e2e_points", Integer.class))
			.isEqualTo(550);
		assertThat(meter("processed")).isEqualTo(10);
		assertThat(meter("duplicate")).isEqualTo(resent);
		MeterRegistry registry = this.context.getBean(MeterRegistry.class);
		// Counted when a row is marked sent: the acknowledgements the dead relay never marked are not.
		assertThat(registry.get(OutboxMeters.OUTBOX_PUBLISHED).counter().count()).isEqualTo(10);
		assertThat(registry.get(OutboxMeters.OUTBOX_LATENCY).timer().count()).isEqualTo(10);
		assertThat(registry.get(OutboxMeters.OUTBOX_BACKLOG).gauge().value()).isZero();
	}

	@Test
	void orderThatRollsBackPublishesNothing() {
		OrderService orders = this.context.getBean(OrderService.class);
		try {
			orders.placeOrderAndFail("order-rolled-back", 5);
		}
		catch (IllegalStateException expected) {
			// rolled back
		}
		assertThat(this.jdbc.queryForObject(
				"SELECT COUNT(*) FROM idempotency_outbox WHERE message_key = 'order-rolled-back'", Integer.class))
			.isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM outbox_e2e_orders WHERE order_id = 'order-rolled-back'",
				Integer.class)).isZero();
	}

	private long meter(String outcome) {
		return this.context.getBean(MeterRegistry.class)
			.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, NAMESPACE)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableTransactionManagement
	static class OrderAndPointsApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		/** The relay's repository: lets the test kill the relay between the broker ack and the mark. */
		@Bean
		@Primary
		InterceptingOutboxRepository interceptingOutboxRepository(JdbcOutboxRepository outboxRepository) {
			return new InterceptingOutboxRepository(outboxRepository);
		}

		@Bean
		OrderService orderService(JdbcTemplate jdbc, Outbox outbox) {
			jdbc.execute("DROP TABLE IF EXISTS outbox_e2e_orders");
			jdbc.execute("CREATE TABLE outbox_e2e_orders (order_id VARCHAR(64) PRIMARY KEY, points INT NOT NULL)");
			jdbc.update("DELETE FROM idempotency_outbox");
			return new OrderService(jdbc, outbox);
		}

		@Bean
		PointsService pointsService(JdbcTemplate jdbc) {
			jdbc.execute("DROP TABLE IF EXISTS outbox_e2e_points");
			jdbc.execute("CREATE TABLE outbox_e2e_points (order_id VARCHAR(64) NOT NULL, points INT NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace = ?", NAMESPACE);
			return new PointsService(jdbc);
		}

	}

	/** The order service: the order row and its event commit together, or neither does. */
	static class OrderService {

		private final JdbcTemplate jdbc;

		private final Outbox outbox;

		OrderService(JdbcTemplate jdbc, Outbox outbox) {
			this.jdbc = jdbc;
			this.outbox = outbox;
		}

		@Transactional
		public void placeOrder(String orderId, int points) {
			this.jdbc.update("INSERT INTO outbox_e2e_orders (order_id, points) VALUES (?, ?)", orderId, points);
			this.outbox.publish("kafka:" + TOPIC, orderId, new OrderPlaced(orderId, points));
		}

		@Transactional
		public void placeOrderAndFail(String orderId, int points) {
			placeOrder(orderId, points);
			throw new IllegalStateException("payment declined");
		}

	}

	/** The points service: credits each order once, whatever the relay re-sends. */
	static class PointsService {

		private final JdbcTemplate jdbc;

		PointsService(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@KafkaListener(id = "points-outbox", topics = TOPIC, groupId = "points-outbox")
		@Idempotent
		public void onOrderPlaced(String payload) {
			JsonNode order = JsonMapper.shared().readTree(payload);
			this.jdbc.update("INSERT INTO outbox_e2e_points (order_id, points) VALUES (?, ?)",
					order.get("orderId").asString(), order.get("points").asInt());
		}

	}

	record OrderPlaced(String orderId, int points) {
	}

}
