package dev.idempotency.benchmarks.kafka;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Harness;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Message;
import dev.idempotency.benchmarks.support.MessageStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.TopicPartition;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Kafka listener messages per second, end to end, on PostgreSQL and an in-process KRaft broker:
 * {@code @KafkaListener @Idempotent} against the same listener with the hand-written insert-or-ignore,
 * for record and for batch listeners.
 * <p>
 * Every variant is a Spring Boot application with spring-kafka's auto-configured container factory
 * (ack mode {@code BATCH}, {@code max.poll.records} 500) and one listener on its own topic of 4
 * partitions. The container starts once and is paused between rounds. Each round: the tables are
 * reset, {@code --messages} records are produced (every tenth re-sends the record five positions
 * earlier with the same key, ~10% duplicates, see {@link MessageStream}; keyed, so a duplicate lands
 * on its original's partition), then the clock starts, the container resumes, and the clock stops
 * when the group's committed offsets reach the end of every partition (polled every 10 ms). The end
 * state is then checked (ledger rows, keys applied twice, all balances). Variants are interleaved
 * round by round; the first {@code --warmup} rounds are not counted.
 * <p>
 * Variants: {@code hand-record} (a record listener that opens the transaction, inserts the key with
 * {@code ON CONFLICT DO NOTHING} and applies the business writes if it was inserted: the record
 * baseline); {@code starter-record} ({@code @Idempotent(key = "#rec.key()")} on the same listener);
 * {@code hand-batch} (a batch listener: one transaction, one multi-row insert-or-ignore
 * {@code RETURNING} the keys inserted, the business writes for those: the batch baseline);
 * {@code starter-batch} ({@code @Idempotent(key = "#element.key()")} on the batch listener). The
 * hand variants run with {@code idempotency.enabled=false}, as an application without the starter.
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.KafkaBench [--messages 10000] [--rounds 5] [--warmup 3]
 * [--concurrency 1,4] [--variants hand-record,starter-record,hand-batch,starter-batch]}; normally
 * through {@code scripts/bench.sh --suite kafka}.
 */
public final class KafkaBench {

	private static final int PARTITIONS = 4;

	private static final String LISTENER_ID = "bench";

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final int messages;

	private final EmbeddedKafkaKraftBroker broker;

	private final Admin kafkaAdmin;

	private final KafkaProducer<String, String> producer;

	private final HikariDataSource admin;

	private final JdbcTemplate adminJdbc;

	private KafkaBench(int messages) {
		this.messages = messages;
		this.broker = new EmbeddedKafkaKraftBroker(1, PARTITIONS);
		this.broker.afterPropertiesSet();
		this.kafkaAdmin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.broker.getBrokersAsString()));
		this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.broker.getBrokersAsString(), ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(),
				new StringSerializer());
		this.admin = Database.POSTGRESQL.newDataSource(2);
		this.adminJdbc = new JdbcTemplate(this.admin);
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> options = Harness.options(args);
		int messages = Integer.parseInt(options.getOrDefault("messages", "10000"));
		int rounds = Integer.parseInt(options.getOrDefault("rounds", "5"));
		int warmup = Integer.parseInt(options.getOrDefault("warmup", "3"));
		List<Integer> concurrencies = Harness.list(options.getOrDefault("concurrency", "1,4"))
			.stream()
			.map(Integer::valueOf)
			.toList();
		List<String> variants = Harness.list(
				options.getOrDefault("variants", "hand-record,starter-record,hand-batch,starter-batch"));
		String loadAtStart = Harness.loadAverage();
		Instant started = Instant.now();
		KafkaBench bench = new KafkaBench(messages);
		List<InterleavedRounds.Row> rows = new ArrayList<>();
		List<String> verdicts = new ArrayList<>();
		try {
			LedgerTables.create(bench.adminJdbc);
			for (int concurrency : concurrencies) {
				rows.addAll(bench.measure(variants, concurrency, warmup, rounds, verdicts));
			}
		}
		finally {
			bench.close();
		}
		String report = report(rows, verdicts, messages, rounds, warmup, loadAtStart, started,
				System.getProperty("bench.command", "KafkaBench " + String.join(" ", args)));
		Harness.publish("kafka", report);
	}

	private List<InterleavedRounds.Row> measure(List<String> names, int concurrency, int warmup, int rounds, List<String> verdicts)
			throws Exception {
		List<Variant> variants = new ArrayList<>();
		try {
			for (String name : names) {
				variants.add(new Variant(name, concurrency));
			}
			return InterleavedRounds.run(variants, (variant) -> variant.name, concurrency, warmup, rounds,
					this::runRound, verdicts);
		}
		finally {
			for (Variant variant : variants) {
				try {
					variant.close();
				}
				catch (RuntimeException ex) {
					System.err.println("Closing " + variant.name + " failed: " + ex);
				}
			}
		}
	}

	private InterleavedRounds.Result runRound(Variant variant, int round) throws Exception {
		// Reset and produce (not timed), while the container is paused.
		variant.pause();
		LedgerTables.reset(this.adminJdbc);
		MessageStream source = new MessageStream(this.runId + "-" + variant.name + "-c" + variant.concurrency + "-r"
				+ round, LedgerTables.ACCOUNTS);
		for (int i = 0; i < this.messages; i++) {
			Message message = source.next();
			this.producer.send(new ProducerRecord<>(variant.topic, message.getKey(),
					message.getAccount() + ":" + message.getAmount()));
		}
		this.producer.flush();
		Map<TopicPartition, Long> end = endOffsets(variant.topic);
		// Timed: from resuming the container until the group has committed every record.
		long start = System.nanoTime();
		variant.resume();
		long deadline = start + Duration.ofMinutes(2).toNanos();
		boolean done = false;
		while (!done && System.nanoTime() < deadline) {
			Harness.sleep(10);
			done = isDone(variant.group, end);
		}
		long elapsed = System.nanoTime() - start;
		double seconds = elapsed / 1e9;
		List<String> problems = LedgerTables.problems(this.adminJdbc,
				source.expected(LedgerTables.ACCOUNTS, false), true);
		if (!done) {
			problems.add(0, "not finished within 2 minutes");
		}
		String counts = "records=" + source.issued() + " ledger=" + LedgerTables.ledgerRows(this.adminJdbc);
		String verdict = problems.isEmpty() ? "OK (" + counts + ")"
				: "WRONG — " + String.join("; ", problems) + " (" + counts + ")";
		return new InterleavedRounds.Result(this.messages / seconds, seconds, verdict);
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

	private void close() {
		this.producer.close();
		this.kafkaAdmin.close();
		this.broker.destroy();
		this.admin.close();
	}

	private static String report(List<InterleavedRounds.Row> rows, List<String> verdicts, int messages, int rounds, int warmup,
			String loadAtStart, Instant started, String command) {
		StringBuilder out = new StringBuilder();
		out.append("Run finished ").append(LocalDateTime.now().withNano(0)).append(" (started ")
			.append(started.atZone(ZoneOffset.systemDefault()).toLocalDateTime().withNano(0)).append("): ")
			.append(messages).append(" records per round (~10% duplicates), ").append(warmup).append(" warm-up + ")
			.append(rounds).append(" measured rounds per row, variants interleaved; ").append(PARTITIONS)
			.append(" partitions, ack mode BATCH, max.poll.records 500.\n\nCommand: `").append(command)
			.append("`\n\nMachine: ").append(Harness.machine()).append("; load average at start ").append(loadAtStart)
			.append(", at the end ").append(Harness.loadAverage()).append("; PostgreSQL: ")
			.append(Database.POSTGRESQL.serverVersion())
			.append("; Kafka: in-process EmbeddedKafkaKraftBroker, 1 broker\n\n");
		out.append(InterleavedRounds.table(rows, "ratio to its hand-written baseline",
				(variant) -> variant.endsWith("batch") ? "hand-batch" : "hand-record", verdicts));
		return out.toString();
	}



	/** One Spring Boot application with one listener, its topic and its consumer group. */
	private final class Variant implements AutoCloseable {

		final String name;

		final int concurrency;

		final String topic;

		final String group;

		private final ConfigurableApplicationContext context;

		private final MessageListenerContainer container;

		Variant(String name, int concurrency) {
			this.name = name;
			this.concurrency = concurrency;
			this.topic = "bench-kafka-" + KafkaBench.this.runId + "-" + name + "-c" + concurrency;
			this.group = "bench-" + name + "-c" + concurrency + "-" + KafkaBench.this.runId;
			Class<?> listener = switch (name) {
				case "hand-record" -> HandRecordListener.class;
				case "starter-record" -> StarterRecordListener.class;
				case "hand-batch" -> HandBatchListener.class;
				case "starter-batch" -> StarterBatchListener.class;
				default -> throw new IllegalArgumentException("Unknown variant '" + name
						+ "'; use hand-record, starter-record, hand-batch, starter-batch");
			};
			KafkaBench.this.broker.addTopics(new NewTopic(this.topic, PARTITIONS, (short) 1));
			Map<String, Object> properties = new LinkedHashMap<>(
					Database.POSTGRESQL.springProperties(concurrency + 2));
			properties.put("spring.main.banner-mode", "off");
			properties.put("logging.level.root", "warn");
			properties.put("spring.kafka.bootstrap-servers", KafkaBench.this.broker.getBrokersAsString());
			properties.put("spring.kafka.consumer.group-id", this.group);
			properties.put("spring.kafka.consumer.auto-offset-reset", "earliest");
			properties.put("spring.kafka.consumer.max-poll-records", 500);
			properties.put("spring.kafka.listener.concurrency", concurrency);
			// A paused consumer sits in poll() until this timeout: it bounds the delay of a resume.
			properties.put("spring.kafka.listener.poll-timeout", "50ms");
			properties.put("spring.kafka.listener.type", name.endsWith("batch") ? "batch" : "single");
			properties.put("bench.topic", this.topic);
			properties.put("idempotency.enabled", name.startsWith("starter"));
			properties.put("idempotency.store.type", "jdbc");
			properties.put("idempotency.retention", "1h");
			properties.put("idempotency.jdbc.table-name", LedgerTables.DEDUP_TABLE);
			properties.put("idempotency.jdbc.initialize-schema", "never");
			properties.put("idempotency.jdbc.purge.enabled", "false");
			this.context = new SpringApplicationBuilder(KafkaApp.class).sources(listener)
				.web(WebApplicationType.NONE)
				.properties(properties)
				.logStartupInfo(false)
				.run();
			this.container = this.context.getBean(KafkaListenerEndpointRegistry.class)
				.getListenerContainer(LISTENER_ID);
			this.container.start();
			await("partitions assigned to " + name, () -> this.container.getAssignedPartitions() != null
					&& this.container.getAssignedPartitions().size() == PARTITIONS);
		}

		void pause() {
			this.container.pause();
			await(this.name + " paused", this.container::isContainerPaused);
		}

		void resume() {
			this.container.resume();
		}

		@Override
		public void close() {
			this.container.stop();
			this.context.close();
		}

		private static void await(String what, java.util.function.BooleanSupplier condition) {
			long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
			while (!condition.getAsBoolean()) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Timed out waiting for " + what);
				}
				Harness.sleep(10);
			}
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class KafkaApp {

	}

	private static void apply(JdbcTemplate jdbc, ConsumerRecord<String, String> record) {
		String value = record.value();
		LedgerTables.apply(jdbc, record.key(), account(record), Long.parseLong(value.substring(value.indexOf(':') + 1)));
	}

	private static int account(ConsumerRecord<String, String> record) {
		return Integer.parseInt(record.value().substring(0, record.value().indexOf(':')));
	}

	/**
	 * A batch's business writes in account order: concurrent batches that credit the same accounts
	 * in different orders would deadlock (a property of this workload, not of the dedup).
	 */
	private static void applyInAccountOrder(JdbcTemplate jdbc, List<ConsumerRecord<String, String>> records) {
		List<ConsumerRecord<String, String>> sorted = new ArrayList<>(records);
		sorted.sort(java.util.Comparator.comparingInt(KafkaBench::account));
		sorted.forEach((record) -> apply(jdbc, record));
	}

	private static Object utc(Instant instant) {
		return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
	}

	/** Record baseline: the transaction, the insert-or-ignore and the business writes by hand. */
	public static class HandRecordListener {

		private final JdbcTemplate jdbc;

		private final TransactionTemplate transactions;

		public HandRecordListener(JdbcTemplate jdbc, TransactionTemplate transactions) {
			this.jdbc = jdbc;
			this.transactions = transactions;
		}

		@KafkaListener(id = LISTENER_ID, idIsGroup = false, topics = "${bench.topic}", autoStartup = "false")
		public void onRecord(ConsumerRecord<String, String> rec) {
			this.transactions.executeWithoutResult((status) -> {
				Instant now = Instant.now();
				if (this.jdbc.update(LedgerTables.INSERT_OR_IGNORE, "hand", rec.key(), "COMPLETED", utc(now),
						utc(now.plus(Duration.ofHours(1)))) == 1) {
					apply(this.jdbc, rec);
				}
			});
		}

	}

	/** The record listener with the starter. */
	public static class StarterRecordListener {

		private final JdbcTemplate jdbc;

		public StarterRecordListener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@KafkaListener(id = LISTENER_ID, idIsGroup = false, topics = "${bench.topic}", autoStartup = "false")
		@Idempotent(key = "#rec.key()")
		public void onRecord(ConsumerRecord<String, String> rec) {
			apply(this.jdbc, rec);
		}

	}

	/**
	 * Batch baseline: one transaction per batch, one multi-row insert-or-ignore of the batch's distinct
	 * keys in sorted order (concurrent batches then never deadlock), the business writes for the keys
	 * it inserted, in account order.
	 */
	public static class HandBatchListener {

		private final JdbcTemplate jdbc;

		private final TransactionTemplate transactions;

		public HandBatchListener(JdbcTemplate jdbc, TransactionTemplate transactions) {
			this.jdbc = jdbc;
			this.transactions = transactions;
		}

		@KafkaListener(id = LISTENER_ID, idIsGroup = false, topics = "${bench.topic}", autoStartup = "false")
		public void onBatch(List<ConsumerRecord<String, String>> recs) {
			this.transactions.executeWithoutResult((status) -> {
				Set<String> inserted = insertAll(new TreeSet<>(recs.stream().map(ConsumerRecord::key).toList()));
				List<ConsumerRecord<String, String>> fresh = new ArrayList<>(recs.size());
				for (ConsumerRecord<String, String> rec : recs) {
					if (inserted.remove(rec.key())) {
						fresh.add(rec);
					}
				}
				applyInAccountOrder(this.jdbc, fresh);
			});
		}

		private Set<String> insertAll(Set<String> keys) {
			StringBuilder sql = new StringBuilder("INSERT INTO " + LedgerTables.DEDUP_TABLE
					+ " (namespace, idempotency_key, status, created_at, expires_at) VALUES ");
			List<Object> args = new ArrayList<>(keys.size() * 5);
			Instant now = Instant.now();
			Object createdAt = utc(now);
			Object expiresAt = utc(now.plus(Duration.ofHours(1)));
			for (String key : keys) {
				sql.append(args.isEmpty() ? "(?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?)");
				args.addAll(List.of("hand", key, "COMPLETED", createdAt, expiresAt));
			}
			sql.append(" ON CONFLICT (namespace, idempotency_key) DO NOTHING RETURNING idempotency_key");
			return new HashSet<>(this.jdbc.queryForList(sql.toString(), String.class, args.toArray()));
		}

	}

	/** The batch listener with the starter: the method receives only the records claimed now. */
	public static class StarterBatchListener {

		private final JdbcTemplate jdbc;

		public StarterBatchListener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@KafkaListener(id = LISTENER_ID, idIsGroup = false, topics = "${bench.topic}", autoStartup = "false")
		@Idempotent(key = "#element.key()")
		public void onBatch(List<ConsumerRecord<String, String>> recs) {
			applyInAccountOrder(this.jdbc, recs);
		}

	}

}
