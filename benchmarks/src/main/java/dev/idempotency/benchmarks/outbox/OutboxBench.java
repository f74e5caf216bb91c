package dev.idempotency.benchmarks.outbox;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Harness;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.outbox.KafkaOutboxSender;
import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxRelay;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.TopicPartition;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 5: the transactional outbox relay on PostgreSQL to an in-process Kafka broker
 * ({@link EmbeddedKafkaKraftBroker}, one KRaft broker, topics with 2 partitions).
 * <p>
 * <b>Throughput.</b> Two Spring Boot applications (everything auto-configured, outbox enabled, the
 * relay polling every {@code --poll-interval}, batch size 100) share the outbox table. Each round
 * writes {@code --rows} rows in one transaction (not timed), and the clock runs from that commit until
 * the relays have marked the last row sent (counted by an {@link IdempotencyListener} in each
 * application). {@code relay-1} runs one relay, {@code relay-2} both. Baselines in the same run, with
 * the same payloads, key and {@code message-id} header, on the same {@code KafkaTemplate} settings:
 * {@code kafka-batch} sends 100 records and waits for their acknowledgements, then the next 100 (the
 * relay without the database); {@code kafka-sync} is a {@code send(...).get()} loop over a tenth of
 * the rows. Variants are interleaved round by round; the first {@code --warmup} rounds are not counted.
 * After every round the topic is read from the start: every message id must be there exactly once,
 * and no outbox row may be left unsent.
 * <p>
 * <b>Latency.</b> For each poll interval in {@code --latency-poll-intervals}, a fresh application runs
 * business transactions (the account UPDATE and ledger INSERT of the other benchmarks plus
 * {@code Outbox.publish}) at {@code --rate} per second for {@code --seconds}. The latency of a
 * message is from {@code System.nanoTime()} taken right after its transaction committed to the
 * completion of the Kafka producer's send future for it in the relay (the broker's acknowledgement,
 * {@code acks=all}), recorded by a {@link KafkaOutboxSender} subclass. Baseline: the same transaction
 * without the outbox and a {@code KafkaTemplate.send} right after commit, timed the same way.
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.OutboxBench [--rows 5000] [--rounds 3] [--warmup 1]
 * [--poll-interval 20ms] [--latency-poll-intervals 500ms,50ms] [--rate 200] [--seconds 10]}; normally
 * through {@code scripts/bench.sh --suite outbox}.
 */
public final class OutboxBench {

	static final String TABLE = "bench_outbox";

	static final int ACCOUNTS = 1000;

	private static final int BATCH = 100;

	/** Broker acknowledgement times by message id, written by every {@link TimingKafkaOutboxSender}. */
	static final Map<String, Long> ACKED = new ConcurrentHashMap<>();

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final EmbeddedKafkaKraftBroker broker;

	private final HikariDataSource admin;

	private final JdbcTemplate adminJdbc;

	private int topics;

	private OutboxBench() {
		this.broker = new EmbeddedKafkaKraftBroker(1, 2);
		this.broker.afterPropertiesSet();
		this.admin = Database.POSTGRESQL.newDataSource(2);
		this.adminJdbc = new JdbcTemplate(this.admin);
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> options = Harness.options(args);
		int rows = Integer.parseInt(options.getOrDefault("rows", "5000"));
		int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
		int warmup = Integer.parseInt(options.getOrDefault("warmup", "1"));
		String pollInterval = options.getOrDefault("poll-interval", "20ms");
		List<String> latencyPolls = Harness.list(options.getOrDefault("latency-poll-intervals", "500ms,50ms"));
		int rate = Integer.parseInt(options.getOrDefault("rate", "200"));
		int seconds = Integer.parseInt(options.getOrDefault("seconds", "10"));
		List<String> variants = Harness.list(
				options.getOrDefault("variants", "relay-1,relay-2,kafka-batch,kafka-sync"));
		String loadAtStart = Harness.loadAverage();
		Instant started = Instant.now();
		OutboxBench bench = new OutboxBench();
		List<String> lines = new ArrayList<>();
		StringBuilder tables = new StringBuilder();
		try {
			bench.createTables();
			if (rounds > 0) {
				tables.append(bench.throughput(variants, rows, warmup, rounds, pollInterval, lines));
			}
			if (seconds > 0 && !latencyPolls.isEmpty()) {
				tables.append(bench.latency(latencyPolls, rate, seconds, lines));
			}
		}
		finally {
			bench.close();
		}
		StringBuilder report = new StringBuilder();
		report.append("Run finished ").append(LocalDateTime.now().withNano(0)).append(" (started ")
			.append(started.atZone(ZoneOffset.systemDefault()).toLocalDateTime().withNano(0)).append(").\n\nCommand: `")
			.append(System.getProperty("bench.command", "OutboxBench " + String.join(" ", args)))
			.append("`\n\nMachine: ").append(Harness.machine()).append("; load average at start ").append(loadAtStart)
			.append(", at the end ").append(Harness.loadAverage()).append("; PostgreSQL: ")
			.append(Database.POSTGRESQL.serverVersion()).append("; Kafka: in-process EmbeddedKafkaKraftBroker, 1 broker")
			.append("\n\n").append(tables).append("\nRounds:\n\n");
		lines.forEach((line) -> report.append("- ").append(line).append('\n'));
		Harness.publish("outbox", report.toString());
		System.exit(0);
	}

	private void createTables() throws Exception {
		Harness.createFromShippedSchema(this.adminJdbc, "dev/idempotency/outbox/schema-postgresql.sql",
				"idempotency_outbox", TABLE);
		this.adminJdbc.execute("CREATE TABLE IF NOT EXISTS bench_outbox_account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
		this.adminJdbc.execute("""
				CREATE TABLE IF NOT EXISTS bench_outbox_ledger (
					id BIGSERIAL PRIMARY KEY,
					msg_key VARCHAR(200) NOT NULL,
					account_id INT NOT NULL,
					amount BIGINT NOT NULL
				)""");
		Integer accounts = this.adminJdbc.queryForObject("SELECT COUNT(*) FROM bench_outbox_account", Integer.class);
		if (accounts == null || accounts != ACCOUNTS) {
			this.adminJdbc.execute("TRUNCATE bench_outbox_account");
			this.adminJdbc.update("INSERT INTO bench_outbox_account (id, balance) SELECT g, 0 FROM generate_series(0, ?) g",
					ACCOUNTS - 1);
		}
	}

	// ---- throughput ------------------------------------------------------------------------------

	private String throughput(List<String> variants, int rows, int warmup, int rounds, String pollInterval,
			List<String> lines) {
		RelayApp first = new RelayApp("a", pollInterval);
		RelayApp second = new RelayApp("b", pollInterval);
		Map<String, List<Double>> rates = new LinkedHashMap<>();
		Map<String, Integer> wrong = new LinkedHashMap<>();
		variants.forEach((variant) -> {
			rates.put(variant, new ArrayList<>());
			wrong.put(variant, 0);
		});
		try {
			for (int round = 0; round < warmup + rounds; round++) {
				for (int i = 0; i < variants.size(); i++) {
					String variant = variants.get((i + round) % variants.size());
					boolean measured = round >= warmup;
					Result result = switch (variant) {
						case "relay-1" -> relayRound(first, null, rows);
						case "relay-2" -> relayRound(first, second, rows);
						case "kafka-batch" -> kafkaRound(first, rows, BATCH);
						case "kafka-sync" -> kafkaRound(first, Math.max(1, rows / 10), 1);
						default -> throw new IllegalArgumentException("Unknown variant '" + variant
								+ "'; use relay-1, relay-2, kafka-batch, kafka-sync");
					};
					String line = String.format("%s round %d%s: %,.0f rows/s (%d rows in %.2f s), load %s — %s", variant,
							round, measured ? "" : " (warm-up)", result.rate(), result.count(), result.seconds(),
							Harness.loadAverage(), result.verdict());
					System.out.println(line);
					if (measured) {
						lines.add(line);
						rates.get(variant).add(result.rate());
						if (!result.verdict().startsWith("OK")) {
							wrong.merge(variant, 1, Integer::sum);
						}
					}
				}
			}
		}
		finally {
			first.close();
			second.close();
		}
		double baseline = rates.containsKey("kafka-batch") ? Harness.median(rates.get("kafka-batch")) : Double.NaN;
		StringBuilder out = new StringBuilder();
		out.append("Throughput: ").append(rows).append(" rows per round (kafka-sync: ").append(Math.max(1, rows / 10))
			.append("), ").append(warmup).append(" warm-up + ").append(rounds)
			.append(" measured rounds per row, relay batch size ").append(BATCH).append(", poll interval ")
			.append(pollInterval).append(".\n\n");
		out.append("| variant | rows/s (median) | rounds min–max | ratio to kafka-batch | correctness |\n");
		out.append("|---|---|---|---|---|\n");
		rates.forEach((variant, values) -> out.append("| ").append(variant).append(" | ")
			.append(Harness.fmt(Harness.median(values))).append(" | ")
			.append(Harness.fmt(values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN))).append("–")
			.append(Harness.fmt(values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN)))
			.append(" | ").append(String.format("%.2f", Harness.median(values) / baseline)).append(" | ")
			.append(wrong.get(variant) == 0 ? "OK" : "**WRONG** (" + wrong.get(variant) + " rounds)").append(" |\n"));
		out.append('\n');
		return out.toString();
	}

	private Result relayRound(RelayApp first, RelayApp second, int rows) {
		first.relay().start();
		if (second != null) {
			second.relay().start();
		}
		this.adminJdbc.execute("TRUNCATE " + TABLE);
		String topic = newTopic(first, second);
		long sentBefore = sent(first, second);
		// One transaction: every row becomes visible to the relays at the same commit.
		first.transactions().executeWithoutResult((status) -> {
			for (int i = 0; i < rows; i++) {
				first.outbox().publish("kafka:" + topic, key(i), payload(i));
			}
		});
		long start = System.nanoTime();
		long deadline = start + Duration.ofMinutes(2).toNanos();
		while (sent(first, second) - sentBefore < rows && System.nanoTime() < deadline) {
			Harness.sleep(2);
		}
		long elapsed = System.nanoTime() - start;
		if (second != null) {
			second.relay().stop();
		}
		long unsent = this.adminJdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status <> 'SENT'",
				Long.class);
		long total = this.adminJdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Long.class);
		List<String> ids = this.adminJdbc.queryForList("SELECT message_id FROM " + TABLE, String.class);
		String verdict = verifyTopic(topic, ids);
		if (unsent != 0 || total != rows) {
			verdict = "WRONG — " + unsent + " rows not sent of " + total + "; " + verdict;
		}
		return new Result(rows / (elapsed / 1e9), elapsed / 1e9, rows, verdict);
	}

	private static long sent(RelayApp first, RelayApp second) {
		return first.sent().get() + ((second != null) ? second.sent().get() : 0);
	}

	private Result kafkaRound(RelayApp app, int rows, int batch) {
		KafkaTemplate<String, String> kafka = app.kafka();
		String topic = newTopic(app);
		List<String> ids = new ArrayList<>(rows);
		List<ProducerRecord<String, String>> records = new ArrayList<>(rows);
		for (int i = 0; i < rows; i++) {
			String id = UUID.randomUUID().toString();
			ids.add(id);
			records.add(record(topic, key(i), payload(i), id));
		}
		long start = System.nanoTime();
		List<CompletableFuture<?>> inFlight = new ArrayList<>(batch);
		for (ProducerRecord<String, String> record : records) {
			inFlight.add(kafka.send(record));
			if (inFlight.size() >= batch) {
				inFlight.forEach(CompletableFuture::join);
				inFlight.clear();
			}
		}
		inFlight.forEach(CompletableFuture::join);
		long elapsed = System.nanoTime() - start;
		return new Result(rows / (elapsed / 1e9), elapsed / 1e9, rows, verifyTopic(topic, ids));
	}

	// ---- latency ---------------------------------------------------------------------------------

	private String latency(List<String> pollIntervals, int rate, int seconds, List<String> lines) {
		StringBuilder out = new StringBuilder();
		out.append("Latency: business transactions at ").append(rate).append("/s for ").append(seconds)
			.append(" s per row, one relay; from right after commit to the broker's acknowledgement (ms).\n\n");
		out.append("| variant | poll interval | messages | p50 ms | p90 ms | p99 ms | max ms | correctness |\n");
		out.append("|---|---|---|---|---|---|---|---|\n");
		for (String pollInterval : pollIntervals) {
			RelayApp app = new RelayApp("latency-" + pollInterval, pollInterval);
			try {
				app.relay().start();
				// A short warm-up of both paths, not counted.
				runLatency(app, true, rate, 2, null);
				runLatency(app, false, rate, 2, null);
				out.append(runLatency(app, true, rate, seconds, lines).row("relay", pollInterval));
				out.append(runLatency(app, false, rate, seconds, lines).row("direct send after commit", "—"));
			}
			finally {
				app.close();
			}
		}
		out.append('\n');
		return out.toString();
	}

	private Latency runLatency(RelayApp app, boolean outbox, int rate, int seconds, List<String> lines) {
		this.adminJdbc.execute("TRUNCATE " + TABLE);
		String topic = newTopic(app);
		int count = rate * seconds;
		Map<String, Long> committed = new ConcurrentHashMap<>();
		Map<String, Long> direct = new ConcurrentHashMap<>();
		List<String> ids = new ArrayList<>(count);
		JdbcTemplate jdbc = app.jdbc();
		KafkaTemplate<String, String> kafka = app.kafka();
		long sentBefore = app.sent().get();
		long start = System.nanoTime();
		long interval = 1_000_000_000L / rate;
		for (int i = 0; i < count; i++) {
			long due = start + i * interval;
			long wait = due - System.nanoTime();
			if (wait > 0) {
				Harness.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
			}
			int n = i;
			String id = app.transactions().execute((status) -> {
				int account = Math.floorMod(n * 7919, ACCOUNTS);
				jdbc.update("UPDATE bench_outbox_account SET balance = balance + ? WHERE id = ?", 1 + n % 97, account);
				jdbc.update("INSERT INTO bench_outbox_ledger (msg_key, account_id, amount) VALUES (?, ?, ?)", key(n),
						account, 1 + n % 97);
				if (outbox) {
					return app.outbox().publish("kafka:" + topic, key(n), payload(n));
				}
				String messageId = UUID.randomUUID().toString();
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
					@Override
					public void afterCommit() {
						long commit = System.nanoTime();
						committed.put(messageId, commit);
						kafka.send(record(topic, key(n), payload(n), messageId))
							.whenComplete((result, ex) -> {
								if (ex == null) {
									direct.put(messageId, System.nanoTime());
								}
							});
					}
				});
				return messageId;
			});
			if (outbox) {
				committed.put(id, System.nanoTime());
			}
			ids.add(id);
		}
		Map<String, Long> acked = outbox ? ACKED : direct;
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (System.nanoTime() < deadline
				&& (outbox ? app.sent().get() - sentBefore < count : direct.size() < count)) {
			Harness.sleep(5);
		}
		// The relay counts a row when it is marked sent; the timing callback may finish a moment later.
		Harness.sleep(100);
		long[] latencies = new long[count];
		int measured = 0;
		for (String id : ids) {
			Long commit = committed.get(id);
			Long ack = acked.get(id);
			if (commit != null && ack != null) {
				latencies[measured++] = ack - commit;
			}
		}
		String verdict = verifyTopic(topic, ids);
		if (outbox) {
			long unsent = this.adminJdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status <> 'SENT'",
					Long.class);
			if (unsent != 0) {
				verdict = "WRONG — " + unsent + " rows not sent; " + verdict;
			}
		}
		if (measured != count) {
			verdict = "WRONG — " + (count - measured) + " messages without a latency; " + verdict;
		}
		ids.forEach(ACKED::remove);
		Latency result = new Latency(measured, Harness.percentile(latencies, measured, 50) / 1e6,
				Harness.percentile(latencies, measured, 90) / 1e6, Harness.percentile(latencies, measured, 99) / 1e6,
				Harness.percentile(latencies, measured, 100) / 1e6, verdict);
		if (lines != null) {
			String line = String.format("latency %s (poll %s): p50 %.1f ms, p99 %.1f ms, load %s — %s",
					outbox ? "relay" : "direct", app.pollInterval, result.p50(), result.p99(), Harness.loadAverage(),
					verdict);
			System.out.println(line);
			lines.add(line);
		}
		return result;
	}

	// ---- shared ----------------------------------------------------------------------------------

	/**
	 * A fresh topic whose metadata the given applications' producers already have, so that no timed
	 * send waits for the first metadata fetch of a new topic.
	 */
	private String newTopic(RelayApp... apps) {
		String topic = "bench-outbox-" + this.runId + "-" + (this.topics++);
		this.broker.addTopics(new NewTopic(topic, 2, (short) 1));
		for (RelayApp app : apps) {
			if (app != null) {
				app.kafka().partitionsFor(topic);
			}
		}
		return topic;
	}

	static String key(int n) {
		return "acct-" + Math.floorMod(n * 7919, ACCOUNTS);
	}

	static String payload(int n) {
		return "{\"orderId\":\"order-" + n + "\",\"account\":" + Math.floorMod(n * 7919, ACCOUNTS) + ",\"amount\":"
				+ (1 + n % 97) + ",\"currency\":\"EUR\",\"note\":\"benchmark payload\"}";
	}

	static ProducerRecord<String, String> record(String topic, String key, String payload, String messageId) {
		List<Header> headers = List.of(new RecordHeader(DeliveryContext.MESSAGE_ID_HEADER,
				messageId.getBytes(StandardCharsets.UTF_8)));
		return new ProducerRecord<>(topic, null, key, payload, headers);
	}

	/** Reads the topic from the start: every id exactly once, nothing else. */
	private String verifyTopic(String topic, List<String> ids) {
		Map<String, Integer> seen = new HashMap<>();
		int records = 0;
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(),
				ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000, ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
				new StringDeserializer(), new StringDeserializer())) {
			List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (System.nanoTime() < deadline
					&& partitions.stream().anyMatch((p) -> consumer.position(p) < end.get(p))) {
				for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
					records++;
					Header header = record.headers().lastHeader(DeliveryContext.MESSAGE_ID_HEADER);
					String id = (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : "<none>";
					seen.merge(id, 1, Integer::sum);
				}
			}
		}
		long missing = ids.stream().filter((id) -> !seen.containsKey(id)).count();
		long twice = seen.values().stream().filter((n) -> n > 1).count();
		long unknown = seen.keySet().stream().filter((id) -> !ids.contains(id)).count();
		String counts = "records=" + records + " ids=" + ids.size();
		if (missing == 0 && twice == 0 && unknown == 0 && records == ids.size()) {
			return "OK, every message id once (" + counts + ")";
		}
		return "WRONG — " + missing + " ids missing, " + twice + " ids more than once, " + unknown + " unknown ids ("
				+ counts + ")";
	}

	private void close() {
		this.admin.close();
		this.broker.destroy();
	}

	private record Result(double rate, double seconds, int count, String verdict) {
	}

	private record Latency(int count, double p50, double p90, double p99, double max, String verdict) {

		String row(String variant, String pollInterval) {
			return "| " + variant + " | " + pollInterval + " | " + this.count + " | " + String.format("%.1f", this.p50)
					+ " | " + String.format("%.1f", this.p90) + " | " + String.format("%.1f", this.p99) + " | "
					+ String.format("%.1f", this.max) + " | " + (this.verdict.startsWith("OK") ? "OK" : "**WRONG**")
					+ " |\n";
		}

	}

	/** One relaying application: the starter's outbox, relay and Kafka sender, auto-configured. */
	private final class RelayApp {

		final String pollInterval;

		private final ConfigurableApplicationContext context;

		RelayApp(String name, String pollInterval) {
			this.pollInterval = pollInterval;
			Map<String, Object> properties = new LinkedHashMap<>(Database.POSTGRESQL.springProperties(4));
			properties.put("spring.datasource.hikari.pool-name", "bench-outbox-" + name);
			properties.put("spring.main.banner-mode", "off");
			properties.put("logging.level.root", "warn");
			properties.put("spring.autoconfigure.exclude",
					"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration");
			properties.put("spring.kafka.bootstrap-servers", OutboxBench.this.broker.getBrokersAsString());
			properties.put("spring.kafka.producer.acks", "all");
			properties.put("spring.kafka.producer.properties.enable.idempotence", "true");
			properties.put("idempotency.jdbc.initialize-schema", "never");
			properties.put("idempotency.jdbc.purge.enabled", "false");
			properties.put("idempotency.outbox.enabled", "true");
			properties.put("idempotency.outbox.table-name", TABLE);
			properties.put("idempotency.outbox.initialize-schema", "never");
			properties.put("idempotency.outbox.purge.enabled", "false");
			properties.put("idempotency.outbox.relay.poll-interval", pollInterval);
			properties.put("idempotency.outbox.relay.batch-size", BATCH);
			properties.put("idempotency.outbox.relay.lease", "60s");
			properties.put("idempotency.outbox.relay.send-timeout", "30s");
			this.context = new SpringApplicationBuilder(RelayApplication.class).web(WebApplicationType.NONE)
				.properties(properties)
				.logStartupInfo(false)
				.run();
			relay().stop();
		}

		OutboxRelay relay() {
			return this.context.getBean(OutboxRelay.class);
		}

		Outbox outbox() {
			return this.context.getBean(Outbox.class);
		}

		AtomicLong sent() {
			return this.context.getBean(SentCounter.class).sent;
		}

		@SuppressWarnings("unchecked")
		KafkaTemplate<String, String> kafka() {
			return this.context.getBean(KafkaTemplate.class);
		}

		JdbcTemplate jdbc() {
			return this.context.getBean(JdbcTemplate.class);
		}

		TransactionTemplate transactions() {
			return new TransactionTemplate(this.context.getBean(PlatformTransactionManager.class));
		}

		void close() {
			relay().stop();
			this.context.close();
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class RelayApplication {

		@Bean
		SentCounter sentCounter() {
			return new SentCounter();
		}

		@Bean
		TimingKafkaOutboxSender timingKafkaOutboxSender(KafkaOperations<?, ?> kafka) {
			return new TimingKafkaOutboxSender(kafka);
		}

	}

	/** Counts rows the relay marked sent (the relay tells its listeners after marking). */
	static class SentCounter implements IdempotencyListener {

		final AtomicLong sent = new AtomicLong();

		@Override
		public void onOutcome(IdempotencyEvent event) {
		}

		@Override
		public void onOutboxSent(String destination, Duration latency) {
			this.sent.incrementAndGet();
		}

	}

	/** The starter's Kafka sender, noting when the broker acknowledged each message. */
	static class TimingKafkaOutboxSender extends KafkaOutboxSender {

		TimingKafkaOutboxSender(KafkaOperations<?, ?> kafka) {
			super(kafka);
		}

		@Override
		public CompletableFuture<?> send(String topic, OutboxMessage message) {
			CompletableFuture<?> future = super.send(topic, message);
			future.whenComplete((result, ex) -> {
				if (ex == null) {
					ACKED.putIfAbsent(message.messageId(), System.nanoTime());
				}
			});
			return future;
		}

	}

}
