package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.support.IdempotencyTransactionManagerException;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestKafkaBrokers;
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
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.kafka.transaction.KafkaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import static dev.idempotency.testsupport.Causes.causeOfType;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * Kafka transactions on, as a new user turns them on ({@code spring.kafka.producer.transaction-id-prefix}):
 * Spring Boot then creates a {@code KafkaTransactionManager} beside the JDBC one, neither primary,
 * and the listener container runs each record in a Kafka transaction. {@code @Idempotent} must
 * claim in the PostgreSQL transaction (the manager of the store's DataSource), so a listener that
 * fails once is retried and every record is applied exactly once, in the database and in the
 * records the listener produces. Naming Kafka's manager for {@code @Idempotent} fails start-up.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaTransactionsIntegrationTests {

	private static final Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 2));
		// One broker: the transaction state log cannot have the default three replicas.
		this.broker.brokerProperties(
				Map.of("transaction.state.log.replication.factor", "1", "transaction.state.log.min.isr", "1"));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic("tx-orders", 2, (short) 1), new NewTopic("tx-orders.DLT", 1, (short) 1),
				new NewTopic("tx-credits", 2, (short) 1));
		this.context = application().run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
	}

	private SpringApplicationBuilder application(String... extraProperties) {
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest",
				"spring.kafka.producer.transaction-id-prefix=tx-it-" + System.nanoTime() + "-",
				"spring.kafka.consumer.isolation-level=read-committed",
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.kafka.retry.initial-interval=20ms", "idempotency.kafka.retry.max-interval=50ms"));
		properties.addAll(List.of(extraProperties));
		return new SpringApplicationBuilder(TransactionalApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new));
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
		this.broker.destroy();
	}

	@Test
	void springBootCreatesBothTransactionManagersAndNeitherIsPrimary() {
		assertThat(this.context.getBeansOfType(PlatformTransactionManager.class).values())
			.hasAtLeastOneElementOfType(KafkaTransactionManager.class)
			.hasAtLeastOneElementOfType(JdbcTransactionManager.class)
			.hasSize(2);
	}

	@Test
	void aListenerThatFailsOnceIsRetriedAndEveryRecordIsAppliedExactlyOnce() throws Exception {
		KafkaTemplate<String, String> kafka = this.context.getBean(KafkaTemplate.class);
		int orders = 40;
		for (int i = 0; i < orders; i++) {
			if (i % 10 == 0) {
				FAIL_ONCE.add("tx-" + i);
			}
		}
		kafka.executeInTransaction((operations) -> {
			for (int i = 0; i < orders; i++) {
				operations.send("tx-orders", "tx-" + i, "tx-" + i);
				if (i % 4 == 0) {
					operations.send("tx-orders", "tx-" + i, "tx-" + i);
				}
			}
			return null;
		});
		await().atMost(60, TimeUnit.SECONDS).until(() -> ledger() == orders && FAIL_ONCE.isEmpty());
		Thread.sleep(1000);
		assertThat(ledger()).isEqualTo(orders);
		assertThat(this.jdbc.queryForList("SELECT order_id FROM kafka_tx_ledger GROUP BY order_id HAVING COUNT(*) > 1",
				String.class))
			.isEmpty();
		List<String> credits = readCommitted("tx-credits", orders);
		assertThat(credits).hasSize(orders).doesNotHaveDuplicates();
		assertThat(readCommitted("tx-orders.DLT", 0)).isEmpty();
	}

	@Test
	void namingKafkasTransactionManagerForIdempotentFailsStartUp() {
		assertThatException()
			.isThrownBy(() -> application("idempotency.transaction-manager=kafkaTransactionManager",
					"spring.kafka.listener.auto-startup=false")
				.run()
				.close())
			.satisfies((ex) -> assertThat(causeOfType(ex, IdempotencyTransactionManagerException.class))
				.hasMessageContaining("'kafkaTransactionManager' (KafkaTransactionManager)")
				.hasMessageContaining("does not manage it"));
	}

	private int ledger() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM kafka_tx_ledger", Integer.class);
	}

	private List<String> readCommitted(String topic, int expected) {
		List<String> values = new ArrayList<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(),
				ConsumerConfig.GROUP_ID_CONFIG, "tx-reader-" + System.nanoTime(),
				ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.ISOLATION_LEVEL_CONFIG,
				"read_committed"), new StringDeserializer(), new StringDeserializer())) {
			consumer.subscribe(List.of(topic));
			long deadline = System.nanoTime() + Duration.ofSeconds((expected > 0) ? 30 : 3).toNanos();
			while (System.nanoTime() < deadline && (expected == 0 || values.size() < expected)) {
				consumer.poll(Duration.ofMillis(300)).forEach((record) -> values.add(record.value()));
			}
			// Anything beyond the expected count would show up within a last poll.
			consumer.poll(Duration.ofMillis(500)).forEach((record) -> values.add(record.value()));
		}
		return values;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class TransactionalApplication {

		@Bean
		CreditListener creditListener(JdbcTemplate jdbc, KafkaTemplate<String, String> kafka) {
			jdbc.execute("DROP TABLE IF EXISTS kafka_tx_ledger");
			jdbc.execute("CREATE TABLE kafka_tx_ledger (order_id VARCHAR(64) NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace = 'tx-credits'");
			return new CreditListener(jdbc, kafka);
		}

	}

	static class CreditListener {

		private final JdbcTemplate jdbc;

		private final KafkaTemplate<String, String> kafka;

		CreditListener(JdbcTemplate jdbc, KafkaTemplate<String, String> kafka) {
			this.jdbc = jdbc;
			this.kafka = kafka;
		}

		@KafkaListener(id = "tx-credits", topics = "tx-orders", groupId = "tx-credits")
		@Idempotent(key = "#payload", namespace = "tx-credits")
		public void onOrder(String payload) {
			this.jdbc.update("INSERT INTO kafka_tx_ledger (order_id) VALUES (?)", payload);
			// Joins the container's Kafka transaction: sent only if the record's offset commits.
			this.kafka.send("tx-credits", payload, payload);
			if (FAIL_ONCE.remove(payload)) {
				throw new IllegalStateException("failing " + payload + " once");
			}
		}

	}

}
