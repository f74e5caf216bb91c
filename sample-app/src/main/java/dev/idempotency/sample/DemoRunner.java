package dev.idempotency.sample;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * Publishes the demo's orders to Kafka, waits until the {@code points} consumer group has
 * committed every record (processed, skipped or dead-lettered), and logs what happened. The exit
 * code is 0 when every order was credited exactly once, 1 otherwise.
 */
@Component
@ConditionalOnBooleanProperty("demo.enabled")
public class DemoRunner implements ApplicationRunner, ExitCodeGenerator {

	/** The topic orders are published to. */
	public static final String TOPIC = "orders";

	/** Where records that could not be processed end up (the starter's default suffix). */
	public static final String DEAD_LETTER_TOPIC = TOPIC + ".DLT";

	private static final String GROUP = "points";

	private static final Log logger = LogFactory.getLog(DemoRunner.class);

	private final DemoProperties demo;

	private final KafkaTemplate<Object, Object> kafka;

	private final KafkaAdmin admin;

	private final MeterRegistry meters;

	private final JdbcTemplate jdbc;

	private volatile @Nullable DemoOrders orders;

	private volatile @Nullable DemoReport report;

	public DemoRunner(DemoProperties demo, KafkaTemplate<Object, Object> kafka, KafkaAdmin admin, MeterRegistry meters,
			JdbcTemplate jdbc) {
		this.demo = demo;
		this.kafka = kafka;
		this.admin = admin;
		this.meters = meters;
		this.jdbc = jdbc;
	}

	@Override
	public void run(ApplicationArguments args) throws Exception {
		DemoOrders orders = DemoOrders.generate(this.demo);
		this.orders = orders;
		for (OrderPlaced order : orders.sends()) {
			// Every send is a new message: a producer's retry after a lost ack gets a new message id
			// too, so only the business key (the order id) can tell it is the same order.
			ProducerRecord<Object, Object> record = new ProducerRecord<>(TOPIC, order.userId(), order);
			record.headers()
				.add(DeliveryContext.MESSAGE_ID_HEADER, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
			this.kafka.send(record);
		}
		sendMalformed(this.demo.malformedMessages());
		this.kafka.flush();
		long published = orders.sends().size() + this.demo.malformedMessages();
		awaitConsumed(published, this.demo.drainTimeout());
		DemoReport report = new DemoReport(published, orders.unique().size(), orders.duplicates().size(),
				invocations(null), invocations("processed"), invocations("duplicate"), invocations("failed"),
				invocations("rejected"), endOffsets(DEAD_LETTER_TOPIC), orders.expectedPoints(),
				count("SELECT COALESCE(SUM(balance), 0) FROM points_account"),
				count("SELECT COUNT(*) FROM points_ledger"));
		this.report = report;
		logger.info(System.lineSeparator() + report);
	}

	/** Bytes that are not JSON: the consumer's ErrorHandlingDeserializer hands them to the dead-letter topic. */
	private void sendMalformed(int count) throws Exception {
		if (count == 0) {
			return;
		}
		Map<String, Object> config = this.kafka.getProducerFactory().getConfigurationProperties();
		Map<String, Object> raw = new java.util.HashMap<>(config);
		raw.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
		raw.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
		DefaultKafkaProducerFactory<String, byte[]> factory = new DefaultKafkaProducerFactory<>(raw);
		try {
			KafkaTemplate<String, byte[]> template = new KafkaTemplate<>(factory);
			for (int i = 0; i < count; i++) {
				template.send(TOPIC, "malformed-" + i, "{not json".getBytes(StandardCharsets.UTF_8))
					.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			factory.destroy();
		}
	}

	/** Waits until the group's committed offsets reach the end of every partition of the topic. */
	private void awaitConsumed(long published, Duration timeout) throws Exception {
		long deadline = System.nanoTime() + timeout.toNanos();
		try (Admin client = Admin.create(this.admin.getConfigurationProperties())) {
			while (true) {
				long committed = client.listConsumerGroupOffsets(GROUP)
					.partitionsToOffsetAndMetadata()
					.get(10, TimeUnit.SECONDS)
					.entrySet()
					.stream()
					.filter((entry) -> entry.getKey().topic().equals(TOPIC) && entry.getValue() != null)
					.mapToLong((entry) -> entry.getValue().offset())
					.sum();
				if (committed >= published) {
					return;
				}
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("The points group committed " + committed + " of " + published
							+ " records within " + timeout);
				}
				Thread.sleep(200);
			}
		}
	}

	private long endOffsets(String topic) throws InterruptedException, ExecutionException, TimeoutException {
		try (Admin client = Admin.create(this.admin.getConfigurationProperties())) {
			List<TopicPartition> partitions = client.describeTopics(List.of(topic))
				.allTopicNames()
				.get(10, TimeUnit.SECONDS)
				.get(topic)
				.partitions()
				.stream()
				.map((info) -> new TopicPartition(topic, info.partition()))
				.toList();
			Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
			partitions.forEach((partition) -> latest.put(partition, OffsetSpec.latest()));
			return client.listOffsets(latest)
				.all()
				.get(10, TimeUnit.SECONDS)
				.values()
				.stream()
				.mapToLong(ListOffsetsResultInfo::offset)
				.sum();
		}
	}

	private long invocations(@Nullable String outcome) {
		var search = this.meters.find(IdempotencyMeters.INVOCATIONS).tag(IdempotencyMeters.NAMESPACE_TAG, GROUP);
		if (outcome != null) {
			search = search.tag(IdempotencyMeters.OUTCOME_TAG, outcome);
		}
		return search.timers().stream().mapToLong(Timer::count).sum();
	}

	private long count(String sql) {
		Long value = this.jdbc.queryForObject(sql, Long.class);
		return (value != null) ? value : 0;
	}

	/** The orders of the last run, or {@code null} before the run. */
	public @Nullable DemoOrders orders() {
		return this.orders;
	}

	/** The report of the last run, or {@code null} before the run. */
	public @Nullable DemoReport report() {
		return this.report;
	}

	@Override
	public int getExitCode() {
		DemoReport report = this.report;
		return (report == null || report.creditedOncePerOrder()) ? 0 : 1;
	}

}
