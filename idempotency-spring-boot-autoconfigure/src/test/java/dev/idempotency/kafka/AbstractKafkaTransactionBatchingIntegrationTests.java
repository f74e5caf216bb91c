package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.testsupport.TestKafkaBrokers;
import dev.idempotency.testsupport.TransactionsSeen;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
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
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Transaction batching of record-style {@code @Idempotent} Kafka listeners
 * ({@code idempotency.kafka.transaction-batching.enabled}), on an in-process KRaft broker and a real
 * database: a poll commits in one transaction, a failing record is rolled back, retried and
 * dead-lettered alone while the others commit once and in order. Each test sends its records first
 * and only then starts its listener, so that they arrive in as few polls as the broker hands out.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractKafkaTransactionBatchingIntegrationTests {

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	private KafkaTemplate<String, String> kafka;

	private BatchedListeners listeners;

	/** Spring Boot properties of the database. */
	abstract String[] databaseProperties();

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1));
		this.broker.afterPropertiesSet();
		for (String topic : List.of("tb-flow", "tb-poison", "tb-key")) {
			this.broker.addTopics(new NewTopic(topic, 1, (short) 1), new NewTopic(topic + ".DLT", 1, (short) 1));
		}
		List<String> properties = new ArrayList<>(List.of(databaseProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.kafka.retry.max-attempts=3",
				"idempotency.kafka.retry.initial-interval=20ms", "idempotency.kafka.retry.max-interval=50ms",
				"idempotency.kafka.transaction-batching.enabled=true"));
		this.context = new SpringApplicationBuilder(BatchingApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.kafka = this.context.getBean(KafkaTemplate.class);
		this.listeners = this.context.getBean(BatchedListeners.class);
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
		this.broker.destroy();
	}

	@Test
	void pollIsCommittedInOneTransactionWithEveryOrderCreditedOnceAndItsOffsetsCommitted() throws Exception {
		List<String> sent = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			sent.add("flow-" + i + ":1");
			if (i % 10 == 3) {
				sent.add("flow-" + i + ":1");
			}
		}
		sent.forEach((value) -> send("tb-flow", value));
		startListener("tb-flow");
		await().atMost(30, TimeUnit.SECONDS).until(() -> committedOffset("tb-flow") == sent.size());
		assertThat(creditsPerOrder("flow-%")).hasSize(50).allSatisfy((order, count) -> assertThat(count).isOne());
		assertThat(meter("tb-flow", "processed")).isEqualTo(50);
		assertThat(meter("tb-flow", "duplicate")).isEqualTo(5);
		assertThat(this.listeners.calls("tb-flow")).as("method calls").isEqualTo(50);
		// Record by record, each order would have had a transaction of its own.
		assertThat(this.listeners.transactions("tb-flow")).as("transactions of the 50 orders").isBetween(1, 5);
	}

	@Test
	void failingRecordIsRetriedAndDeadLetteredAloneWhileTheOthersCommitOnceAndInOrder() throws Exception {
		List<String> sent = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			sent.add("p-" + i + ":1");
		}
		sent.add(5, "poison:1");
		sent.add(7, "p-3:1");
		sent.add("p-8:1");
		sent.forEach((value) -> send("tb-poison", value));
		startListener("tb-poison");
		await().atMost(30, TimeUnit.SECONDS).until(() -> committedOffset("tb-poison") == sent.size());
		assertThat(creditsPerOrder("p-%")).hasSize(10).allSatisfy((order, count) -> assertThat(count).isOne());
		assertThat(creditsPerOrder("poison")).isEmpty();
		assertThat(deadLetters("tb-poison.DLT", 1)).containsExactly("poison:1");
		// Three deliveries (max-attempts); the first also ran in the poll's rolled-back transaction.
		assertThat(this.listeners.poisonCalls()).isEqualTo(4);
		List<String> events = this.listeners.events();
		List<String> commits = events.stream().filter((event) -> event.startsWith("commit:")).toList();
		assertThat(commits).as("commits in partition order")
			.containsExactly("commit:p-0", "commit:p-1", "commit:p-2", "commit:p-3", "commit:p-4", "commit:p-5",
					"commit:p-6", "commit:p-7", "commit:p-8", "commit:p-9");
		assertThat(events.indexOf("commit:p-5")).as("the records after the poison commit after its last attempt")
			.isGreaterThan(events.lastIndexOf("poison"));
		assertThat(meter("tb-poison", "processed")).isEqualTo(10);
		assertThat(meter("tb-poison", "duplicate")).isEqualTo(2);
		assertThat(meter("tb-poison", "failed")).as("one per delivery of the poison").isEqualTo(3);
	}

	@Test
	void messageWithoutAKeyIsDeadLetteredAtOnceAndTheMessagesAroundItAreCreditedOnce() throws Exception {
		List<String> sent = List.of("k-1:1", "k-2:1", ":9", "k-3:1", "k-2:1");
		sent.forEach((value) -> send("tb-key", value));
		startListener("tb-key");
		await().atMost(30, TimeUnit.SECONDS).until(() -> committedOffset("tb-key") == sent.size());
		assertThat(creditsPerOrder("k-%")).hasSize(3).allSatisfy((order, count) -> assertThat(count).isOne());
		assertThat(deadLetters("tb-key.DLT", 1)).containsExactly(":9");
		assertThat(meter("tb-key", "rejected")).isEqualTo(1);
		assertThat(meter("tb-key", "processed")).isEqualTo(3);
		assertThat(meter("tb-key", "duplicate")).isEqualTo(1);
		assertThat(meter("tb-key", "failed")).isZero();
	}

	private void startListener(String id) {
		this.context.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer(id).start();
	}

	private void send(String topic, String value) {
		try {
			this.kafka.send(topic, value.split(":")[0], value).get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private long committedOffset(String group) throws Exception {
		try (AdminClient admin = AdminClient.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()))) {
			OffsetAndMetadata offset = admin.listConsumerGroupOffsets(group)
				.partitionsToOffsetAndMetadata()
				.get(10, TimeUnit.SECONDS)
				.get(new TopicPartition(group, 0));
			return (offset != null) ? offset.offset() : -1;
		}
	}

	private Map<String, Integer> creditsPerOrder(String pattern) {
		return this.jdbc.query("SELECT order_id, COUNT(*) FROM tb_ledger WHERE order_id LIKE ? GROUP BY order_id",
				(rs) -> {
					Map<String, Integer> counts = new java.util.HashMap<>();
					while (rs.next()) {
						counts.put(rs.getString(1), rs.getInt(2));
					}
					return counts;
				}, pattern);
	}

	private long meter(String group, String outcome) {
		return this.context.getBean(MeterRegistry.class)
			.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, (namespace) -> namespace.startsWith(group + ":"))
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	/** Reads a dead-letter topic from the start until at least {@code atLeast} values, then 1 s more. */
	private List<String> deadLetters(String topic, int atLeast) {
		List<String> found = new ArrayList<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(),
				ConsumerConfig.GROUP_ID_CONFIG, "dlt-reader-" + System.nanoTime(),
				ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
				new StringDeserializer())) {
			consumer.subscribe(List.of(topic));
			long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
			while (found.size() < atLeast && System.nanoTime() < deadline) {
				consumer.poll(Duration.ofMillis(300)).forEach((record) -> found.add(record.value()));
			}
			consumer.poll(Duration.ofSeconds(1)).forEach((record) -> found.add(record.value()));
		}
		return found;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class BatchingApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		BatchedListeners batchedListeners(JdbcTemplate jdbc, DataSource dataSource) {
			jdbc.execute("DROP TABLE IF EXISTS tb_ledger");
			jdbc.execute("CREATE TABLE tb_ledger (order_id VARCHAR(64) NOT NULL, points INT NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE 'tb-%'");
			return new BatchedListeners(jdbc, dataSource);
		}

	}

	static class BatchedListeners {

		private final JdbcTemplate jdbc;

		private final TransactionsSeen transactions;

		private final AtomicInteger poisonCalls = new AtomicInteger();

		private final List<String> events = new CopyOnWriteArrayList<>();

		BatchedListeners(JdbcTemplate jdbc, DataSource dataSource) {
			this.jdbc = jdbc;
			this.transactions = new TransactionsSeen(dataSource);
		}

		/** Calls of the method with the poison record (methods, since the bean is a proxy). */
		public int poisonCalls() {
			return this.poisonCalls.get();
		}

		/** The poison's calls and the other records' commits, in the order they happened. */
		public List<String> events() {
			return this.events;
		}

		/** Calls of a listener's method. */
		public int calls(String listener) {
			return this.transactions.calls(listener);
		}

		/** Distinct transactions a listener's method ran in. */
		public int transactions(String listener) {
			return this.transactions.transactions(listener);
		}

		@KafkaListener(id = "tb-flow", topics = "tb-flow", groupId = "tb-flow", autoStartup = "false")
		@Idempotent(key = "#payload.split(':')[0]")
		public void onFlow(String payload) {
			credit("tb-flow", payload);
		}

		@KafkaListener(id = "tb-poison", topics = "tb-poison", groupId = "tb-poison", autoStartup = "false")
		@Idempotent(key = "#payload.split(':')[0]")
		public void onPossiblePoison(String payload) {
			if (payload.startsWith("poison")) {
				this.poisonCalls.incrementAndGet();
				this.events.add("poison");
				throw new IllegalStateException("poison record " + payload);
			}
			credit("tb-poison", payload);
			String order = payload.split(":")[0];
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					BatchedListeners.this.events.add("commit:" + order);
				}

			});
		}

		@KafkaListener(id = "tb-key", topics = "tb-key", groupId = "tb-key", autoStartup = "false")
		@Idempotent(key = "#payload.split(':')[0]")
		public void onKeys(String payload) {
			credit("tb-key", payload);
		}

		private void credit(String listener, String payload) {
			this.transactions.record(listener);
			String[] parts = payload.split(":");
			this.jdbc.update("INSERT INTO tb_ledger (order_id, points) VALUES (?, ?)", parts[0],
					Integer.parseInt(parts[1]));
		}

	}

}
