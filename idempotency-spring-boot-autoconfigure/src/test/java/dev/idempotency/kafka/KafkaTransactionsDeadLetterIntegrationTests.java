package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
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
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A poison record with Kafka transactions on (Spring Boot's {@code KafkaTransactionManager} on
 * the container, the DataSource's manager for {@code @Idempotent}) and 12 configured attempts:
 * after them it is published to {@code <topic>.DLT} in a Kafka transaction together with its
 * offset, so a {@code read_committed} reader sees it, and the records after it are credited once.
 * Two listeners: one with the starter's error handler, which recovers inside the transaction while
 * the after-rollback processor counts along, and one whose container has no error handler, so the
 * after-rollback processor alone retries and dead-letters. spring-kafka's default after-rollback
 * processor would log the record after its tenth rollback and skip it: lost, and not on the DLT.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaTransactionsDeadLetterIntegrationTests {

	private static final String TOPIC = "txp-orders";

	/** The listener, and its topic, whose container has no error handler. */
	private static final String ROLLBACK_ONLY = "txp-rollback-only";

	private static final int ATTEMPTS = 12;

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1));
		// One broker: the transaction state log cannot have the default three replicas.
		this.broker.brokerProperties(
				Map.of("transaction.state.log.replication.factor", "1", "transaction.state.log.min.isr", "1"));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic(TOPIC, 1, (short) 1), new NewTopic(TOPIC + ".DLT", 1, (short) 1),
				new NewTopic(ROLLBACK_ONLY, 1, (short) 1), new NewTopic(ROLLBACK_ONLY + ".DLT", 1, (short) 1));
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest",
				"spring.kafka.producer.transaction-id-prefix=txp-it-" + System.nanoTime() + "-",
				"spring.kafka.consumer.isolation-level=read-committed", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.kafka.retry.initial-interval=20ms",
				"idempotency.kafka.retry.max-interval=50ms", "idempotency.kafka.retry.max-attempts=" + ATTEMPTS));
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
	void poisonRecordIsDeadLetteredAfterItsAttemptsAndTheRecordsAfterItAreCreditedOnce() {
		assertPoisonIsDeadLetteredInTheTransaction(TOPIC);
	}

	@Test
	void withoutAnErrorHandlerTheAfterRollbackProcessorRetriesAndDeadLettersThePoisonRecord() {
		assertPoisonIsDeadLetteredInTheTransaction(ROLLBACK_ONLY);
	}

	@SuppressWarnings("unchecked")
	private void assertPoisonIsDeadLetteredInTheTransaction(String topic) {
		KafkaTemplate<String, String> kafka = this.context.getBean(KafkaTemplate.class);
		kafka.executeInTransaction((operations) -> {
			for (int i = 0; i < 3; i++) {
				operations.send(topic, topic + "-before-" + i);
			}
			operations.send(topic, topic + "-poison");
			for (int i = 0; i < 5; i++) {
				operations.send(topic, topic + "-after-" + i);
			}
			return null;
		});
		await().atMost(60, TimeUnit.SECONDS).until(() -> ledger(topic) == 8);
		assertThat(readCommitted(topic + ".DLT", 1)).as("read_committed from the DLT")
			.containsExactly(topic + "-poison");
		assertThat(ledger(topic)).isEqualTo(8);
		assertThat(this.jdbc.queryForList(
				"SELECT order_id FROM kafka_txp_ledger WHERE topic = ? GROUP BY order_id HAVING COUNT(*) > 1",
				String.class, topic))
			.as("credited more than once")
			.isEmpty();
		PoisonListener listener = this.context.getBean(PoisonListener.class);
		assertThat(listener.poisonInvocations(topic)).as("the configured attempts").isEqualTo(ATTEMPTS);
	}

	private int ledger(String topic) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM kafka_txp_ledger WHERE topic = ?", Integer.class, topic);
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
			jdbc.execute("CREATE TABLE kafka_txp_ledger (topic VARCHAR(32) NOT NULL, order_id VARCHAR(64) NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE 'txp-%'");
			return new PoisonListener(jdbc);
		}

		/** Failures of {@value #ROLLBACK_ONLY} go straight to the after-rollback processor. */
		@Bean
		ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>> noErrorHandler() {
			return (container) -> {
				if (ROLLBACK_ONLY.equals(container.getListenerId())) {
					container.setCommonErrorHandler(null);
				}
			};
		}

	}

	static class PoisonListener {

		private final JdbcTemplate jdbc;

		private final Map<String, AtomicInteger> poisonInvocations = new ConcurrentHashMap<>();

		PoisonListener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		/** Calls of the method with a topic's poison record (a method, since the bean is a proxy). */
		public int poisonInvocations(String topic) {
			AtomicInteger calls = this.poisonInvocations.get(topic);
			return (calls != null) ? calls.get() : 0;
		}

		@KafkaListener(id = TOPIC, topics = TOPIC, groupId = TOPIC)
		@Idempotent(key = "#payload", namespace = TOPIC)
		public void onOrder(String payload) {
			credit(TOPIC, payload);
		}

		@KafkaListener(id = ROLLBACK_ONLY, topics = ROLLBACK_ONLY, groupId = ROLLBACK_ONLY)
		@Idempotent(key = "#payload", namespace = ROLLBACK_ONLY)
		public void onOrderWithoutErrorHandler(String payload) {
			credit(ROLLBACK_ONLY, payload);
		}

		private void credit(String topic, String payload) {
			if (payload.endsWith("-poison")) {
				this.poisonInvocations.computeIfAbsent(topic, (key) -> new AtomicInteger()).incrementAndGet();
				throw new IllegalStateException("poison record " + payload);
			}
			this.jdbc.update("INSERT INTO kafka_txp_ledger (topic, order_id) VALUES (?, ?)", topic, payload);
		}

	}

}
