package dev.idempotency.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.MessageFields;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestKafkaBrokers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
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
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} on {@code @KafkaListener}s, on an in-process KRaft broker and the real
 * PostgreSQL: producer duplicates, redelivered offsets, poison records, records without a key, and
 * manual acknowledgement.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaIdempotentListenerIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final String IDS = "kafka-it-ids-" + RUN;

	private static final String ESCAPED = "kafka-it-escaped-" + RUN;

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	private KafkaTemplate<String, String> kafka;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 4));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic("orders", 4, (short) 1), new NewTopic("orders.DLT", 1, (short) 1),
				new NewTopic("audit", 2, (short) 1), new NewTopic("manual", 2, (short) 1),
				new NewTopic("rebalance", 4, (short) 1), new NewTopic("ids", 1, (short) 1),
				new NewTopic("escaped-ids", 1, (short) 1));
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("it.run=" + RUN, "spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.kafka.retry.initial-interval=20ms",
				"idempotency.kafka.retry.max-interval=50ms"));
		this.context = new SpringApplicationBuilder(KafkaApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.kafka = this.context.getBean(KafkaTemplate.class);
	}

	@AfterAll
	void stop() {
		this.jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE ? OR namespace LIKE ?", IDS + ":%",
				ESCAPED + ":%");
		this.context.close();
		this.broker.destroy();
	}

	@Test
	void producerDuplicatesWithNewOffsetsAreAppliedOnce() {
		for (int i = 0; i < 50; i++) {
			send("orders", "dup-" + i + ":10");
			send("orders", "dup-" + i + ":10");
		}
		await().atMost(30, TimeUnit.SECONDS).until(() -> meter("points", "duplicate") >= 50);
		assertThat(ledgerCount("dup-%")).isEqualTo(50);
		assertThat(this.jdbc.queryForList(
				"SELECT order_id FROM kafka_it_ledger WHERE order_id LIKE 'dup-%' GROUP BY order_id HAVING COUNT(*) > 1",
				String.class))
			.isEmpty();
		assertThat(meter("points", "duplicate")).isEqualTo(50);
	}

	@Test
	void sameOffsetsRedeliveredAfterASeekAreAppliedOnce() throws Exception {
		for (int i = 0; i < 20; i++) {
			send("audit", "entry-" + i);
		}
		await().atMost(30, TimeUnit.SECONDS).until(() -> auditCount() == 20);
		MessageListenerContainer container = this.context.getBean(KafkaListenerEndpointRegistry.class)
			.getListenerContainer("audit");
		container.stop();
		try (AdminClient admin = AdminClient.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()))) {
			Map<TopicPartition, OffsetAndMetadata> earliest = Map.of(new TopicPartition("audit", 0),
					new OffsetAndMetadata(0), new TopicPartition("audit", 1), new OffsetAndMetadata(0));
			admin.alterConsumerGroupOffsets("audit", earliest).all().get(10, TimeUnit.SECONDS);
		}
		container.start();
		await().atMost(30, TimeUnit.SECONDS).until(() -> meter("audit", "duplicate") >= 20);
		assertThat(auditCount()).isEqualTo(20);
	}

	@Test
	void messageIdHeaderNamingAnotherRecordsOffsetSuppressesNeitherRecord() {
		// A's header names B's offset (a later record without a header); D's names C's (an earlier one).
		assertThat(sendWithMessageId("ids", "id-A", "ids:0:1")).isEqualTo(0);
		assertThat(sendWithMessageId("ids", "id-B", null)).isEqualTo(1);
		assertThat(sendWithMessageId("ids", "id-C", null)).isEqualTo(2);
		assertThat(sendWithMessageId("ids", "id-D", "ids:0:2")).isEqualTo(3);
		await().atMost(30, TimeUnit.SECONDS).until(() -> meter(IDS, "processed") + meter(IDS, "duplicate") >= 4);
		assertThat(meter(IDS, "processed")).isEqualTo(4);
		assertThat(meter(IDS, "duplicate")).isZero();
		assertThat(ledgerCount("id-%")).isEqualTo(4);
	}

	@Test
	void messageIdHeaderSpelledLikeADerivedIdSuppressesNothing() {
		// The header spells the derived id of the record after it; escaping keeps the two apart.
		assertThat(sendWithMessageId("escaped-ids", "esc-E", "~kafka:escaped-ids:0:1")).isEqualTo(0);
		assertThat(sendWithMessageId("escaped-ids", "esc-F", null)).isEqualTo(1);
		await().atMost(30, TimeUnit.SECONDS)
			.until(() -> meter(ESCAPED, "processed") + meter(ESCAPED, "duplicate") >= 2);
		assertThat(meter(ESCAPED, "processed")).isEqualTo(2);
		assertThat(meter(ESCAPED, "duplicate")).isZero();
		assertThat(ledgerCount("esc-%")).isEqualTo(2);
	}

	@Test
	void poisonRecordGoesToTheDeadLetterTopicAfterItsAttemptsAndLaterRecordsFlow() {
		send("orders", "poison-1:10");
		send("orders", "after-poison:10");
		List<ConsumerRecord<String, String>> deadLetters = consumeDeadLetters("poison-1:10");
		assertThat(deadLetters).singleElement()
			.satisfies((record) -> assertThat(new String(record.headers().lastHeader("kafka_dlt-exception-message").value()))
				.contains("poison"));
		await().atMost(30, TimeUnit.SECONDS).until(() -> ledgerCount("after-poison") == 1);
		assertThat(ledgerCount("poison-1")).isZero();
		await().atMost(10, TimeUnit.SECONDS)
			.until(() -> deadLettered() >= 1 && meter("points", "failed") >= 3);
	}

	@Test
	void recordWithoutAKeyGoesToTheDeadLetterTopicAtOnce() {
		send("orders", ":10");
		assertThat(consumeDeadLetters(":10")).hasSize(1);
		assertThat(meter("points", "rejected")).isEqualTo(1);
	}

	@Test
	void manualAckModeAcknowledgesDuplicatesSoThePartitionDoesNotStall() throws Exception {
		for (int i = 0; i < 10; i++) {
			this.kafka.send("manual", 0, null, "m-" + i).get(10, TimeUnit.SECONDS);
			this.kafka.send("manual", 0, null, "m-" + i).get(10, TimeUnit.SECONDS);
		}
		await().atMost(30, TimeUnit.SECONDS).until(() -> meter("manual", "duplicate") >= 10);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM kafka_it_ledger WHERE order_id LIKE 'm-%'",
				Integer.class))
			.isEqualTo(10);
		try (AdminClient admin = AdminClient.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()))) {
			TopicPartition partition = new TopicPartition("manual", 0);
			long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
				.partitionResult(partition)
				.get(10, TimeUnit.SECONDS)
				.offset();
			await().atMost(30, TimeUnit.SECONDS).until(() -> {
				OffsetAndMetadata committed = admin.listConsumerGroupOffsets("manual")
					.partitionsToOffsetAndMetadata()
					.get(10, TimeUnit.SECONDS)
					.get(partition);
				return committed != null && committed.offset() == end;
			});
		}
	}

	@Test
	void everyOrderIsCreditedOnceWhenAConsumerLeavesAndRejoinsMidStream() throws Exception {
		KafkaListenerEndpointRegistry registry = this.context.getBean(KafkaListenerEndpointRegistry.class);
		MessageListenerContainer second = registry.getListenerContainer("rebalance-b");
		int orders = 300;
		for (int i = 0; i < orders; i++) {
			send("rebalance", "rb-" + i + ":1");
			if (i % 5 == 0) {
				send("rebalance", "rb-" + i + ":1");
			}
			if (i == 100) {
				second.stop();
			}
			if (i == 200) {
				second.start();
			}
		}
		await().atMost(60, TimeUnit.SECONDS).until(() -> ledgerCount("rb-%") == orders
				&& meter("rebalance", "processed") + meter("rebalance", "duplicate") >= orders + orders / 5);
		assertThat(this.jdbc.queryForList(
				"SELECT order_id FROM kafka_it_ledger WHERE order_id LIKE 'rb-%' GROUP BY order_id HAVING COUNT(*) > 1",
				String.class))
			.isEmpty();
		assertThat(meter("rebalance", "processed")).isEqualTo(orders);
	}

	private void send(String topic, String value) {
		try {
			this.kafka.send(topic, value.split(":")[0], value).get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Sends to partition 0, with the message id header unless it is {@code null}; returns the offset. */
	private long sendWithMessageId(String topic, String value, String messageId) {
		ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, null, value);
		if (messageId != null) {
			record.headers().add(MessageFields.MESSAGE_ID, messageId.getBytes(StandardCharsets.UTF_8));
		}
		try {
			return this.kafka.send(record).get(10, TimeUnit.SECONDS).getRecordMetadata().offset();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private int ledgerCount(String pattern) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM kafka_it_ledger WHERE order_id LIKE ?", Integer.class,
				pattern);
	}

	private int auditCount() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM kafka_it_ledger WHERE order_id LIKE 'entry-%'",
				Integer.class);
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

	private double deadLettered() {
		return this.context.getBean(MeterRegistry.class)
			.find(IdempotencyMeters.DEAD_LETTERED)
			.counters()
			.stream()
			.mapToDouble((counter) -> counter.count())
			.sum();
	}

	private List<ConsumerRecord<String, String>> consumeDeadLetters(String value) {
		List<ConsumerRecord<String, String>> found = new ArrayList<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(),
				ConsumerConfig.GROUP_ID_CONFIG, "dlt-reader-" + System.nanoTime(),
				ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
				new StringDeserializer())) {
			consumer.subscribe(List.of("orders.DLT"));
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (found.isEmpty() && System.nanoTime() < deadline) {
				ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
				records.forEach((record) -> {
					if (value.equals(record.value())) {
						found.add(record);
					}
				});
			}
		}
		return found;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class KafkaApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Listeners listeners(JdbcTemplate jdbc) {
			jdbc.execute("DROP TABLE IF EXISTS kafka_it_ledger");
			jdbc.execute("CREATE TABLE kafka_it_ledger (order_id VARCHAR(64) NOT NULL, points INT NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE 'points:%' OR namespace LIKE 'audit:%' "
					+ "OR namespace LIKE 'manual:%' OR namespace = 'rebalance'");
			return new Listeners(jdbc);
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> manualAckFactory(
				ConsumerFactory<Object, Object> consumerFactory, CommonErrorHandler errorHandler) {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.setCommonErrorHandler(errorHandler);
			factory.getContainerProperties().setAckMode(AckMode.MANUAL);
			return factory;
		}

	}

	static class Listeners {

		private final JdbcTemplate jdbc;

		Listeners(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@KafkaListener(id = "points", topics = "orders", groupId = "points", concurrency = "2")
		@Idempotent(key = "#payload.split(':')[0]")
		public void onOrder(String payload) {
			if (payload.startsWith("poison")) {
				throw new IllegalStateException("poison record " + payload);
			}
			String[] parts = payload.split(":");
			this.jdbc.update("INSERT INTO kafka_it_ledger (order_id, points) VALUES (?, ?)", parts[0],
					Integer.parseInt(parts[1]));
		}

		// Two methods of one group on one topic are one logical consumer: they name one namespace.
		@KafkaListener(id = "rebalance-a", topics = "rebalance", groupId = "rebalance")
		@Idempotent(key = "#payload.split(':')[0]", namespace = "rebalance")
		public void onRebalanceA(String payload) {
			credit(payload);
		}

		@KafkaListener(id = "rebalance-b", topics = "rebalance", groupId = "rebalance")
		@Idempotent(key = "#payload.split(':')[0]", namespace = "rebalance")
		public void onRebalanceB(String payload) {
			credit(payload);
		}

		private void credit(String payload) {
			String[] parts = payload.split(":");
			this.jdbc.update("INSERT INTO kafka_it_ledger (order_id, points) VALUES (?, ?)", parts[0],
					Integer.parseInt(parts[1]));
		}

		@KafkaListener(id = "audit", topics = "audit", groupId = "audit")
		@Idempotent
		public void onAudit(String payload) {
			this.jdbc.update("INSERT INTO kafka_it_ledger (order_id, points) VALUES (?, 0)", payload);
		}

		@KafkaListener(id = "ids", topics = "ids", groupId = "kafka-it-ids-${it.run}")
		@Idempotent
		public void onIds(String payload) {
			this.jdbc.update("INSERT INTO kafka_it_ledger (order_id, points) VALUES (?, 1)", payload);
		}

		@KafkaListener(id = "escaped-ids", topics = "escaped-ids", groupId = "kafka-it-escaped-${it.run}")
		@Idempotent
		public void onEscapedIds(String payload) {
			this.jdbc.update("INSERT INTO kafka_it_ledger (order_id, points) VALUES (?, 1)", payload);
		}

		@KafkaListener(id = "manual", topics = "manual", groupId = "manual", containerFactory = "manualAckFactory")
		@Idempotent(key = "#payload")
		public void onManual(String payload, Acknowledgment acknowledgment) {
			this.jdbc.update("INSERT INTO kafka_it_ledger (order_id, points) VALUES (?, 1)", payload);
		}

	}

}
