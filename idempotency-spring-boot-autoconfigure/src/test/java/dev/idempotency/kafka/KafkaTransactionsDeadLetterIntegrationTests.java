package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.testsupport.TestDatabases;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
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
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A poison record with Kafka transactions on (Spring Boot's {@code KafkaTransactionManager} on
 * the container, the DataSource's manager for {@code @Idempotent}): after its configured attempts
 * it is published to {@code <topic>.DLT} in the container's Kafka transaction together with its
 * offset, so a {@code read_committed} reader sees it, and the records after it are credited once.
 * Without the starter's after-rollback processor spring-kafka would log the record and skip it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaTransactionsDeadLetterIntegrationTests {

	private static final String TOPIC = "txp-orders";

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	@BeforeAll
	void start() {
		this.broker = new EmbeddedKafkaKraftBroker(1, 1);
		// One broker: the transaction state log cannot have the default three replicas.
		this.broker.brokerProperties(
				Map.of("transaction.state.log.replication.factor", "1", "transaction.state.log.min.isr", "1"));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic(TOPIC, 1, (short) 1), new NewTopic(TOPIC + ".DLT", 1, (short) 1));
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest",
				"spring.kafka.producer.transaction-id-prefix=txp-it-" + System.nanoTime() + "-",
				"spring.kafka.consumer.isolation-level=read-committed", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.kafka.retry.initial-interval=20ms",
				"idempotency.kafka.retry.max-interval=50ms"));
		this.context = new SpringApplicationBuilder(PoisonApplication.class).web(WebApplicationType.NONE)
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
	@SuppressWarnings("unchecked")
	void poisonRecordIsDeadLetteredAfterItsAttemptsInTheTransactionAndTheRecordsAfterItAreCreditedOnce() {
		KafkaTemplate<String, String> kafka = this.context.getBean(KafkaTemplate.class);
		kafka.executeInTransaction((operations) -> {
			for (int i = 0; i < 3; i++) {
				operations.send(TOPIC, "before-" + i);
			}
			operations.send(TOPIC, "poison-1");
			for (int i = 0; i < 5; i++) {
				operations.send(TOPIC, "after-" + i);
			}
			return null;
		});
		await().atMost(60, TimeUnit.SECONDS).until(() -> ledger() == 8);
		assertThat(readCommitted(TOPIC + ".DLT", 1)).as("read_committed from the DLT").containsExactly("poison-1");
		assertThat(ledger()).isEqualTo(8);
		assertThat(this.jdbc.queryForList("SELECT order_id FROM kafka_txp_ledger GROUP BY order_id HAVING COUNT(*) > 1",
				String.class))
			.as("credited more than once")
			.isEmpty();
		PoisonListener listener = this.context.getBean(PoisonListener.class);
		assertThat(listener.poisonInvocations()).as("the configured attempts").isEqualTo(3);
	}

	private int ledger() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM kafka_txp_ledger", Integer.class);
	}

	private List<String> readCommitted(String topic, int expected) {
		List<String> values = new ArrayList<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(),
				ConsumerConfig.GROUP_ID_CONFIG, "txp-reader-" + System.nanoTime(),
				ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.ISOLATION_LEVEL_CONFIG,
				"read_committed"), new StringDeserializer(), new StringDeserializer())) {
			consumer.subscribe(List.of(topic));
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (System.nanoTime() < deadline && values.size() < expected) {
				consumer.poll(Duration.ofMillis(300)).forEach((record) -> values.add(record.value()));
			}
			// Anything beyond the expected count would show up within a last poll.
			consumer.poll(Duration.ofMillis(500)).forEach((record) -> values.add(record.value()));
		}
		return values;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class PoisonApplication {

		@Bean
		PoisonListener poisonListener(JdbcTemplate jdbc) {
			jdbc.execute("DROP TABLE IF EXISTS kafka_txp_ledger");
			jdbc.execute("CREATE TABLE kafka_txp_ledger (order_id VARCHAR(64) NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace = 'txp-orders'");
			return new PoisonListener(jdbc);
		}

	}

	static class PoisonListener {

		private final JdbcTemplate jdbc;

		private final AtomicInteger poisonInvocations = new AtomicInteger();

		PoisonListener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		/** Calls of the method with the poison record (a method, since the bean is a proxy). */
		public int poisonInvocations() {
			return this.poisonInvocations.get();
		}

		@KafkaListener(id = "txp-orders", topics = TOPIC, groupId = "txp-orders")
		@Idempotent(key = "#payload", namespace = "txp-orders")
		public void onOrder(String payload) {
			if (payload.startsWith("poison")) {
				this.poisonInvocations.incrementAndGet();
				throw new IllegalStateException("poison record " + payload);
			}
			this.jdbc.update("INSERT INTO kafka_txp_ledger (order_id) VALUES (?)", payload);
		}

	}

}
