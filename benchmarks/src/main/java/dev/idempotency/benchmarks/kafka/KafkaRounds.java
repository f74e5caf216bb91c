package dev.idempotency.benchmarks.kafka;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Message;
import dev.idempotency.benchmarks.support.MessageStream;
import dev.idempotency.benchmarks.support.ThreadCost;
import dev.idempotency.benchmarks.support.Waits;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * One timed round of one listener application: produces the round's records while its container is
 * paused, resumes it, waits until the group has committed every record, and checks the end state.
 * Owns the in-process broker, the producer, the admin client and the ledger tables of the run, on the
 * database under test.
 */
final class KafkaRounds implements AutoCloseable {

	static final int PARTITIONS = 4;

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final int messages;

	private final EmbeddedKafkaKraftBroker broker;

	private final Admin kafkaAdmin;

	private final KafkaProducer<String, String> producer;

	private final HikariDataSource admin;

	private final JdbcTemplate adminJdbc;

	private final LedgerTables tables;

	KafkaRounds(int messages, Database database) {
		this.messages = messages;
		this.broker = new EmbeddedKafkaKraftBroker(1, PARTITIONS);
		this.broker.afterPropertiesSet();
		this.kafkaAdmin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.broker.getBrokersAsString()));
		this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.broker.getBrokersAsString(), ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(),
				new StringSerializer());
		this.admin = database.newDataSource(2);
		this.adminJdbc = new JdbcTemplate(this.admin);
		this.tables = LedgerTables.of(database);
		this.tables.create(this.adminJdbc);
	}

	/** The listener application of that name, with its own topic and group. */
	KafkaListenerApp create(String name, int concurrency) {
		return new KafkaListenerApp(name, concurrency, this.runId, this.broker, this.tables.database());
	}

	InterleavedRounds.Result run(KafkaListenerApp variant, int round) throws Exception {
		// Reset and produce (not timed), while the container is paused.
		variant.pause();
		this.tables.reset(this.adminJdbc);
		MessageStream source = new MessageStream(this.runId + "-" + variant.name() + "-c" + variant.concurrency()
				+ "-r" + round, LedgerTables.ACCOUNTS);
		for (int i = 0; i < this.messages; i++) {
			Message message = source.next();
			this.producer.send(new ProducerRecord<>(variant.topic(), message.getKey(),
					message.getAccount() + ":" + message.getAmount()));
		}
		this.producer.flush();
		Map<TopicPartition, Long> end = endOffsets(variant.topic());
		// Timed: from resuming the container until the group has committed every record.
		ThreadCost before = ThreadCost.of(variant.consumerThreadPrefix());
		long start = System.nanoTime();
		variant.resume();
		long deadline = start + Duration.ofMinutes(2).toNanos();
		boolean done = false;
		while (!done && System.nanoTime() < deadline) {
			Waits.sleep(10);
			done = isDone(variant.group(), end);
		}
		long elapsed = System.nanoTime() - start;
		ThreadCost.PerMessage cost = ThreadCost.of(variant.consumerThreadPrefix()).perMessageSince(before, this.messages);
		double seconds = elapsed / 1e9;
		List<String> problems = LedgerTables.problems(this.adminJdbc,
				source.expected(LedgerTables.ACCOUNTS, false), true);
		if (!done) {
			problems.add(0, "not finished within 2 minutes");
		}
		String counts = "records=" + source.issued() + " ledger=" + LedgerTables.ledgerRows(this.adminJdbc)
				+ " " + cost;
		String verdict = problems.isEmpty() ? "OK (" + counts + ")"
				: "WRONG — " + String.join("; ", problems) + " (" + counts + ")";
		return new InterleavedRounds.Result(this.messages / seconds, seconds, verdict, cost);
	}

	private Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
		Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
		for (int p = 0; p < PARTITIONS; p++) {
			latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
		}
		return this.kafkaAdmin.listOffsets(latest)
			.all()
			.get()
			.entrySet()
			.stream()
			.collect(Collectors.toMap(Map.Entry::getKey, (entry) -> entry.getValue().offset()));
	}

	private boolean isDone(String group, Map<TopicPartition, Long> end) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> committed = this.kafkaAdmin.listConsumerGroupOffsets(group)
			.partitionsToOffsetAndMetadata()
			.get();
		for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
			OffsetAndMetadata offset = committed.get(partition.getKey());
			if (partition.getValue() > 0 && (offset == null || offset.offset() < partition.getValue())) {
				return false;
			}
		}
		return true;
	}

	@Override
	public void close() {
		this.producer.close();
		this.kafkaAdmin.close();
		this.broker.destroy();
		this.admin.close();
	}

}
