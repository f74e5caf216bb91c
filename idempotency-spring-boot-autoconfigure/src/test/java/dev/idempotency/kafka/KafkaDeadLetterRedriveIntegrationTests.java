package dev.idempotency.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
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
 * {@link DeadLetterRedrive} as auto-configured, on an in-process KRaft broker and the real
 * PostgreSQL: an order dead-lettered while its listener fails is, once the listener is fixed,
 * re-driven with its {@code message-id} and processed once, also when re-driven twice; a dry run
 * sends nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaDeadLetterRedriveIntegrationTests {

	private static final String TOPIC = "redrive-orders";

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	private KafkaTemplate<String, String> kafka;

	private DeadLetterRedrive redrive;

	private Listener listener;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 2));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic(TOPIC, 2, (short) 1), new NewTopic(TOPIC + ".DLT", 2, (short) 1));
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.kafka.retry.max-attempts=2",
				"idempotency.kafka.retry.initial-interval=20ms", "idempotency.kafka.retry.max-interval=50ms"));
		this.context = new SpringApplicationBuilder(RedriveApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.kafka = this.context.getBean(KafkaTemplate.class);
		this.redrive = this.context.getBean(DeadLetterRedrive.class);
		this.listener = this.context.getBean(Listener.class);
	}

	@AfterAll
	void stop() {
		this.context.close();
		this.broker.destroy();
	}

	@Test
	void deadLetteredOrderIsRedrivenAfterTheFixAndProcessedOnceEvenWhenRedrivenTwice() {
		this.listener.fail("order-1");
		send("k-1", "msg-1", "order-1");
		DeadLetterRedrive.DeadLetter deadLetter = awaitDeadLetter("msg-1");
		assertThat(ledger("order-1")).isZero();
		this.listener.fix("order-1");
		DeadLetterRedrive.Query query = new DeadLetterRedrive.Query(deadLetter.offset(), deadLetter.partition(), 1);

		DeadLetterRedrive.Report report = this.redrive.redrive(TOPIC, query);

		assertThat(report.dryRun()).isFalse();
		assertThat(report.sent()).isEqualTo(1);
		assertThat(report.records()).containsExactly(deadLetter);
		await().atMost(30, TimeUnit.SECONDS).until(() -> ledger("order-1") == 1);
		ConsumerRecord<String, String> redriven = this.listener.received("order-1");
		assertThat(redriven.topic()).isEqualTo(TOPIC);
		assertThat(redriven.partition()).isEqualTo(deadLetter.originalPartition());
		assertThat(redriven.key()).isEqualTo("k-1");
		assertThat(header(redriven, MessageFields.MESSAGE_ID)).isEqualTo("msg-1");
		assertThat(redriven.headers()).noneMatch((header) -> header.key().startsWith("kafka_dlt-"));

		// Kafka keeps the record in the dead-letter topic: a second re-drive sends it again, and the
		// consumer finds its message id completed
		long duplicates = duplicates();
		assertThat(this.redrive.redrive(TOPIC, query).sent()).isEqualTo(1);
		await().atMost(30, TimeUnit.SECONDS).until(() -> duplicates() > duplicates);
		assertThat(ledger("order-1")).isEqualTo(1);
	}

	@Test
	void dryRunReportsTheRecordAndSendsNothing() throws Exception {
		this.listener.fail("order-2");
		send("k-2", "msg-2", "order-2");
		DeadLetterRedrive.DeadLetter deadLetter = awaitDeadLetter("msg-2");
		this.listener.fix("order-2");
		Map<TopicPartition, Long> before = endOffsets(TOPIC);

		DeadLetterRedrive.Report report = this.redrive.preview(TOPIC,
				new DeadLetterRedrive.Query(deadLetter.offset(), deadLetter.partition(), 1));

		assertThat(report.dryRun()).isTrue();
		assertThat(report.sent()).isZero();
		assertThat(report.deadLetterTopic()).isEqualTo(TOPIC + ".DLT");
		assertThat(report.nextOffsets()).containsEntry(deadLetter.partition(), deadLetter.offset() + 1);
		assertThat(report.records()).singleElement().satisfies((record) -> {
			assertThat(record.originalTopic()).isEqualTo(TOPIC);
			assertThat(record.originalPartition()).isNotNull();
			assertThat(record.originalOffset()).isNotNull();
			assertThat(record.messageId()).isEqualTo("msg-2");
			assertThat(record.exceptionClass()).isNotBlank();
			assertThat(record.exceptionCauseClass()).isEqualTo(IllegalStateException.class.getName());
			assertThat(record.exceptionMessage()).contains("broken order-2");
		});
		Thread.sleep(500);
		assertThat(endOffsets(TOPIC)).isEqualTo(before);
		assertThat(ledger("order-2")).isZero();
	}

	@Test
	void pagesByOffsetWithinAPartition() {
		for (int i = 0; i < 3; i++) {
			this.listener.fail("page-" + i);
		}
		for (int i = 0; i < 3; i++) {
			send("page-key", "page-msg-" + i, "page-" + i);
		}
		DeadLetterRedrive.DeadLetter first = awaitDeadLetter("page-msg-0");
		awaitDeadLetter("page-msg-2");
		DeadLetterRedrive.Report page = this.redrive.preview(TOPIC,
				new DeadLetterRedrive.Query(first.offset(), first.partition(), 2));
		assertThat(page.records()).extracting(DeadLetterRedrive.DeadLetter::messageId)
			.containsExactly("page-msg-0", "page-msg-1");
		long next = page.nextOffsets().get(first.partition());
		DeadLetterRedrive.Report nextPage = this.redrive.preview(TOPIC,
				new DeadLetterRedrive.Query(next, first.partition(), 2));
		assertThat(nextPage.records()).extracting(DeadLetterRedrive.DeadLetter::messageId)
			.startsWith("page-msg-2");
	}

	@Test
	void missingDeadLetterTopicIsEmptyAndNotCreated() throws Exception {
		DeadLetterRedrive.Report report = this.redrive.preview("no-such-topic", new DeadLetterRedrive.Query(0, null, 5));
		assertThat(report.records()).isEmpty();
		assertThat(report.nextOffsets()).isEmpty();
		try (AdminClient admin = AdminClient.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()))) {
			assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).doesNotContain("no-such-topic.DLT");
		}
	}

	private DeadLetterRedrive.DeadLetter awaitDeadLetter(String messageId) {
		return await().atMost(30, TimeUnit.SECONDS)
			.until(() -> this.redrive.preview(TOPIC, new DeadLetterRedrive.Query(0, null, 200))
				.records()
				.stream()
				.filter((record) -> messageId.equals(record.messageId()))
				.findFirst()
				.orElse(null), (found) -> found != null);
	}

	private void send(String key, String messageId, String value) {
		ProducerRecord<String, String> record = new ProducerRecord<>(TOPIC, key, value);
		record.headers().add(MessageFields.MESSAGE_ID, messageId.getBytes(StandardCharsets.UTF_8));
		try {
			this.kafka.send(record).get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
		try (AdminClient admin = AdminClient.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()))) {
			Map<TopicPartition, OffsetSpec> latest = Map.of(new TopicPartition(topic, 0), OffsetSpec.latest(),
					new TopicPartition(topic, 1), OffsetSpec.latest());
			Map<TopicPartition, Long> offsets = new HashMap<>();
			admin.listOffsets(latest)
				.all()
				.get(10, TimeUnit.SECONDS)
				.forEach((partition, info) -> offsets.put(partition, info.offset()));
			return offsets;
		}
	}

	private int ledger(String orderId) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM redrive_it_ledger WHERE order_id = ?", Integer.class,
				orderId);
	}

	private long duplicates() {
		return this.context.getBean(MeterRegistry.class)
			.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, (namespace) -> namespace.startsWith("redrive:"))
			.tag(IdempotencyMeters.OUTCOME_TAG, "duplicate")
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	private static String header(ConsumerRecord<?, ?> record, String name) {
		Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RedriveApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Listener listener(JdbcTemplate jdbc) {
			jdbc.execute("DROP TABLE IF EXISTS redrive_it_ledger");
			jdbc.execute("CREATE TABLE redrive_it_ledger (order_id VARCHAR(64) NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE 'redrive:%'");
			return new Listener(jdbc);
		}

	}

	static class Listener {

		// Fields of the target: the bean is a proxy (@Idempotent), so tests go through methods
		private final Set<String> failing = ConcurrentHashMap.newKeySet();

		private final Map<String, ConsumerRecord<String, String>> received = new ConcurrentHashMap<>();

		private final JdbcTemplate jdbc;

		Listener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		public void fail(String order) {
			this.failing.add(order);
		}

		public void fix(String order) {
			this.failing.remove(order);
		}

		public ConsumerRecord<String, String> received(String order) {
			return this.received.get(order);
		}

		// The key is the message-id header: the same on every re-drive
		@KafkaListener(id = "redrive", topics = TOPIC, groupId = "redrive")
		@Idempotent
		public void onOrder(ConsumerRecord<String, String> record) {
			if (this.failing.contains(record.value())) {
				throw new IllegalStateException("broken " + record.value());
			}
			this.received.put(record.value(), record);
			this.jdbc.update("INSERT INTO redrive_it_ledger (order_id) VALUES (?)", record.value());
		}

	}

}
