package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestKafkaBrokers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} on batch {@code @KafkaListener}s, on an in-process KRaft broker and the real
 * PostgreSQL. Each test sends its records first and only then starts its listener, so that they
 * arrive in as few batches as the broker hands out.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaIdempotentBatchListenerIntegrationTests {

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	private KafkaTemplate<String, String> kafka;

	private BatchListeners listeners;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1));
		this.broker.afterPropertiesSet();
		for (String topic : List.of("batch-dup", "batch-key", "batch-fail")) {
			this.broker.addTopics(new NewTopic(topic, 1, (short) 1), new NewTopic(topic + ".DLT", 1, (short) 1));
		}
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.kafka.retry.max-attempts=2",
				"idempotency.kafka.retry.initial-interval=20ms", "idempotency.kafka.retry.max-interval=50ms"));
		this.context = new SpringApplicationBuilder(BatchApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.kafka = this.context.getBean(KafkaTemplate.class);
		this.listeners = this.context.getBean(BatchListeners.class);
	}

	@AfterAll
	void stop() {
		this.context.close();
		this.broker.destroy();
	}

	@Test
	void duplicatesWithinAndAcrossBatchesAreAppliedOnceAndNeverPassedToTheMethod() {
		for (int i = 0; i < 40; i++) {
			send("batch-dup", "d-" + i + ":5");
			send("batch-dup", "d-" + i + ":5");
			if (i % 4 == 0) {
				send("batch-dup", "d-" + i + ":5");
			}
		}
		startListener("batch-dup");
		await().atMost(30, TimeUnit.SECONDS).until(() -> meter("batch-dup", "duplicate") >= 50);
		assertThat(creditsPerOrder("d-%")).hasSize(40).allSatisfy((order, count) -> assertThat(count).isOne());
		assertThat(this.listeners.received("batch-dup")).as("elements passed to the method").hasSize(40);
		assertThat(meter("batch-dup", "processed")).isEqualTo(40);
		assertThat(meter("batch-dup", "duplicate")).isEqualTo(50);
		assertThat(this.listeners.calls()).as("listener calls").isLessThan(40);
	}

	@Test
	void messageWithoutAKeyIsDeadLetteredAloneAndTheMessagesAroundItAreAppliedOnce() {
		for (String value : List.of("k-1:1", "k-2:1", ":9", "k-3:1", "k-4:1")) {
			send("batch-key", value);
		}
		startListener("batch-key");
		await().atMost(30, TimeUnit.SECONDS).until(() -> creditsPerOrder("k-%").size() == 4);
		assertThat(creditsPerOrder("k-%")).allSatisfy((order, count) -> assertThat(count).isOne());
		assertThat(deadLetters("batch-key.DLT", 1)).containsExactly(":9");
		assertThat(meter("batch-key", "rejected")).isEqualTo(1);
		assertThat(meter("batch-key", "failed")).isZero();
	}

	@Test
	void batchListenerFailedExceptionDoesNotCommitRolledBackMessagesBeforeIt() {
		List<String> sent = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			sent.add("f-" + i + ":1");
		}
		sent.add(3, "f-poison:1");
		sent.forEach((value) -> send("batch-fail", value));
		startListener("batch-fail");
		await().atMost(30, TimeUnit.SECONDS).until(() -> {
			Set<String> settled = new java.util.HashSet<>(creditsPerOrder("f-%").keySet());
			deadLetters("batch-fail.DLT", 0).forEach((value) -> settled.add(value.split(":")[0]));
			return settled.size() == sent.size();
		});
		Map<String, Integer> credited = creditsPerOrder("f-%");
		List<String> deadLettered = deadLetters("batch-fail.DLT", 1);
		assertThat(credited).doesNotContainKey("f-poison").allSatisfy((order, count) -> assertThat(count).isOne());
		assertThat(deadLettered).contains("f-poison:1");
		Set<String> deadLetteredOrders = deadLettered.stream().map((v) -> v.split(":")[0]).collect(Collectors.toSet());
		assertThat(credited.keySet()).as("credited and dead-lettered at once").doesNotContainAnyElementsOf(deadLetteredOrders);
		Set<String> settled = new java.util.HashSet<>(credited.keySet());
		settled.addAll(deadLetteredOrders);
		assertThat(settled).as("every message credited or dead-lettered: none lost")
			.containsExactlyInAnyOrderElementsOf(sent.stream().map((v) -> v.split(":")[0]).toList());
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

	private Map<String, Integer> creditsPerOrder(String pattern) {
		return this.jdbc.query("SELECT order_id, COUNT(*) FROM kafka_batch_ledger WHERE order_id LIKE ? GROUP BY order_id",
				(rs) -> {
					Map<String, Integer> counts = new java.util.HashMap<>();
					while (rs.next()) {
						counts.put(rs.getString(1), rs.getInt(2));
					}
					return counts;
				}, pattern);
	}

	/**
	 * Invocations of the listener methods of one consumer group: their default namespaces are
	 * {@code <group>:<Class>#<method>}, or the group itself where a test names it so.
	 */
	private long meter(String group, String outcome) {
		return this.context.getBean(MeterRegistry.class)
			.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, (namespace) -> namespace.equals(group) || namespace.startsWith(group + ":"))
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	/** Reads the dead-letter topic from the start until at least {@code atLeast} values or 5 s. */
	private List<String> deadLetters(String topic, int atLeast) {
		List<String> found = new ArrayList<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(),
				ConsumerConfig.GROUP_ID_CONFIG, "dlt-reader-" + System.nanoTime(),
				ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
				new StringDeserializer())) {
			consumer.subscribe(List.of(topic));
			long deadline = System.nanoTime() + Duration.ofSeconds((atLeast > 0) ? 15 : 2).toNanos();
			do {
				consumer.poll(Duration.ofMillis(300)).forEach((record) -> found.add(record.value()));
			}
			while ((found.size() < atLeast || atLeast == 0) && System.nanoTime() < deadline);
		}
		return found;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class BatchApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		BatchListeners batchListeners(JdbcTemplate jdbc) {
			jdbc.execute("DROP TABLE IF EXISTS kafka_batch_ledger");
			jdbc.execute("CREATE TABLE kafka_batch_ledger (order_id VARCHAR(64) NOT NULL, points INT NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE 'batch-%'");
			return new BatchListeners(jdbc);
		}

	}

	static class BatchListeners {

		private final JdbcTemplate jdbc;

		final List<String> elements = new CopyOnWriteArrayList<>();

		final List<Integer> batchSizes = new CopyOnWriteArrayList<>();

		BatchListeners(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		int calls() {
			return this.batchSizes.size();
		}

		List<String> received(String prefix) {
			return this.elements.stream().filter((e) -> e.startsWith(prefix + "/")).toList();
		}

		@KafkaListener(id = "batch-dup", topics = "batch-dup", groupId = "batch-dup", batch = "true",
				autoStartup = "false")
		@Idempotent(key = "#element.split(':')[0]")
		public void onDuplicates(List<String> payloads) {
			this.batchSizes.add(payloads.size());
			payloads.forEach((payload) -> {
				this.elements.add("batch-dup/" + payload);
				credit(payload);
			});
		}

		@KafkaListener(id = "batch-key", topics = "batch-key", groupId = "batch-key", batch = "true",
				autoStartup = "false")
		@Idempotent(key = "#record.key()")
		public void onKeys(List<String> payloads) {
			payloads.forEach(this::credit);
		}

		@KafkaListener(id = "batch-fail", topics = "batch-fail", groupId = "batch-fail", batch = "true",
				autoStartup = "false")
		@Idempotent(key = "#element.key()")
		public void onFailing(List<ConsumerRecord<String, String>> records) {
			for (ConsumerRecord<String, String> record : records) {
				if (record.value().startsWith("f-poison")) {
					// Commits the offsets before it in a plain batch listener; here they were rolled back.
					throw new BatchListenerFailedException("poison", record);
				}
				credit(record.value());
			}
		}

		private void credit(String payload) {
			String[] parts = payload.split(":");
			this.jdbc.update("INSERT INTO kafka_batch_ledger (order_id, points) VALUES (?, ?)", parts[0],
					Integer.parseInt(parts[1]));
		}

	}

}
