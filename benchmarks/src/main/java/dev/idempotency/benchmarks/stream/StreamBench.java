package dev.idempotency.benchmarks.stream;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Harness;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Message;
import dev.idempotency.benchmarks.support.MessageStream;
import dev.idempotency.benchmarks.support.RedisConnections;
import dev.idempotency.redis.stream.RedisStreamListener;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 4: Redis Stream messages per second, end to end, through {@code @RedisStreamListener} +
 * {@code @Idempotent}, against hand-written consumer loops on the same stream, on PostgreSQL.
 * <p>
 * Each round of each variant: the stream is deleted, refilled with {@code --messages} entries (every
 * tenth re-sends the key of the entry five positions earlier, ~10% duplicates, see
 * {@link MessageStream}), the consumer group is created at {@code 0}, the benchmark tables are reset;
 * then the clock starts, the variant's consumers start, and the clock stops when the group has read
 * the last entry and nothing is pending (polled every 5 ms with {@code XINFO GROUPS}). The consumers
 * are stopped and the end state is checked: ledger rows, keys applied twice, all balances, nothing
 * pending, nothing dead-lettered. Variants are interleaved round by round (rotating their order), so
 * all see the same machine load; the first {@code --warmup} rounds are not counted.
 * <p>
 * Variants: {@code hand-plain} (XREADGROUP, business transaction, XACK; no dedup, so duplicates are
 * applied and it is checked against "every delivery applied"); {@code hand-ideal} (the same with the
 * insert-or-ignore of variant 2 in the business transaction, XACK after commit: the baseline);
 * {@code starter-jdbc} (transactional mode: JDBC store, XACK after commit); {@code starter-redis}
 * (redis-atomic mode: Redis store on the stream's server, the business transaction in PostgreSQL, one
 * Lua script completes the key and XACKs after commit).
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.StreamBench [--messages 3000] [--rounds 5] [--warmup 1]
 * [--concurrency 1,4] [--batch 10] [--variants hand-plain,hand-ideal,starter-jdbc,starter-redis]};
 * normally through {@code scripts/bench.sh --suite streams}.
 */
public final class StreamBench {

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final int messages;

	private final int batch;

	private final HikariDataSource admin;

	private final JdbcTemplate adminJdbc;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private StreamBench(int messages, int batch) {
		this.messages = messages;
		this.batch = batch;
		this.admin = Database.POSTGRESQL.newDataSource(2);
		this.adminJdbc = new JdbcTemplate(this.admin);
		this.client = RedisClient.create(RedisURI.builder()
			.withHost(RedisConnections.host())
			.withPort(RedisConnections.port())
			.withDatabase(RedisConnections.database())
			.build());
		this.connection = this.client.connect();
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> options = Harness.options(args);
		int messages = Integer.parseInt(options.getOrDefault("messages", "3000"));
		int rounds = Integer.parseInt(options.getOrDefault("rounds", "5"));
		int warmup = Integer.parseInt(options.getOrDefault("warmup", "1"));
		int batch = Integer.parseInt(options.getOrDefault("batch", "10"));
		List<Integer> concurrencies = Harness.list(options.getOrDefault("concurrency", "1,4"))
			.stream()
			.map(Integer::valueOf)
			.toList();
		List<String> variants = Harness.list(
				options.getOrDefault("variants", "hand-plain,hand-ideal,starter-jdbc,starter-redis"));
		String loadAtStart = Harness.loadAverage();
		Instant started = Instant.now();
		StreamBench bench = new StreamBench(messages, batch);
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
		String report = report(rows, verdicts, messages, rounds, warmup, batch, loadAtStart, started,
				System.getProperty("bench.command", "StreamBench " + String.join(" ", args)));
		Harness.publish("streams", report);
	}

	private List<InterleavedRounds.Row> measure(List<String> names, int concurrency, int warmup, int rounds,
			List<String> verdicts) throws Exception {
		List<Variant> variants = new ArrayList<>();
		try {
			for (String name : names) {
				variants.add(create(name, concurrency));
			}
			return InterleavedRounds.run(variants, (variant) -> variant.name, concurrency, warmup, rounds,
					(variant, round) -> runRound(variant, concurrency, round), verdicts);
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

	private Variant create(String name, int concurrency) {
		String stream = "bench:stream:" + this.runId + ":" + name + ":c" + concurrency;
		String group = "bench-" + name;
		return switch (name) {
			case "hand-plain" -> new HandVariant(name, stream, group, concurrency, false);
			case "hand-ideal" -> new HandVariant(name, stream, group, concurrency, true);
			case "starter-jdbc" -> new StarterVariant(name, stream, group, concurrency, "jdbc");
			case "starter-redis" -> new StarterVariant(name, stream, group, concurrency, "redis");
			default -> throw new IllegalArgumentException("Unknown variant '" + name
					+ "'; use hand-plain, hand-ideal, starter-jdbc, starter-redis");
		};
	}

	private InterleavedRounds.Result runRound(Variant variant, int concurrency, int round) {
		RedisCommands<String, String> redis = this.connection.sync();
		// Reset (not timed).
		redis.del(variant.stream, variant.stream + ".dlq");
		LedgerTables.reset(this.adminJdbc);
		MessageStream source = new MessageStream(this.runId + "-" + variant.name + "-c" + concurrency + "-r" + round,
				LedgerTables.ACCOUNTS);
		String lastId = fill(variant.stream, source);
		redis.xgroupCreate(XReadArgs.StreamOffset.from(variant.stream, "0-0"), variant.group);
		// Timed: from the start of the consumers until the last entry is read and nothing is pending.
		long start = System.nanoTime();
		variant.start();
		long deadline = start + Duration.ofMinutes(2).toNanos();
		boolean done = false;
		while (!done && System.nanoTime() < deadline) {
			Harness.sleep(5);
			done = isDone(redis, variant, lastId);
		}
		long elapsed = System.nanoTime() - start;
		variant.stop();
		double seconds = elapsed / 1e9;
		String verdict = done ? verify(redis, variant, source) : "WRONG — not finished within 2 minutes; "
				+ verify(redis, variant, source);
		return new InterleavedRounds.Result(this.messages / seconds, seconds, verdict);
	}

	private String fill(String stream, MessageStream source) {
		RedisAsyncCommands<String, String> async = this.connection.async();
		List<RedisFuture<String>> futures = new ArrayList<>(this.messages);
		for (int i = 0; i < this.messages; i++) {
			Message message = source.next();
			futures.add(async.xadd(stream, Map.of("key", message.getKey(), "account",
					String.valueOf(message.getAccount()), "amount", String.valueOf(message.getAmount()))));
		}
		String last = null;
		for (RedisFuture<String> future : futures) {
			try {
				last = future.get();
			}
			catch (Exception ex) {
				throw new IllegalStateException("XADD failed", ex);
			}
		}
		return last;
	}

	private static boolean isDone(RedisCommands<String, String> redis, Variant variant, String lastId) {
		for (Object group : redis.xinfoGroups(variant.stream)) {
			Map<String, Object> info = flat((List<?>) group);
			if (variant.group.equals(String.valueOf(info.get("name")))) {
				return lastId.equals(String.valueOf(info.get("last-delivered-id")))
						&& ((Number) info.get("pending")).longValue() == 0;
			}
		}
		return false;
	}

	private static Map<String, Object> flat(List<?> list) {
		Map<String, Object> map = new LinkedHashMap<>();
		for (int i = 0; i + 1 < list.size(); i += 2) {
			map.put(String.valueOf(list.get(i)), list.get(i + 1));
		}
		return map;
	}

	private String verify(RedisCommands<String, String> redis, Variant variant, MessageStream source) {
		MessageStream.Expected expected = source.expected(LedgerTables.ACCOUNTS, !variant.dedups);
		List<String> problems = LedgerTables.problems(this.adminJdbc, expected, variant.dedups);
		long ledger = LedgerTables.ledgerRows(this.adminJdbc);
		long pending = redis.xpending(variant.stream, variant.group).getCount();
		if (pending != 0) {
			problems.add(pending + " entries still pending");
		}
		long dead = redis.exists(variant.stream + ".dlq") == 0 ? 0 : redis.xlen(variant.stream + ".dlq");
		if (dead != 0) {
			problems.add(dead + " entries dead-lettered");
		}
		String counts = "entries=" + expected.issued() + " unique=" + expected.unique() + " ledger=" + ledger;
		return problems.isEmpty() ? "OK (" + counts + ")" : "WRONG — " + String.join("; ", problems) + " (" + counts
				+ ")";
	}

	private void close() {
		RedisCommands<String, String> redis = this.connection.sync();
		ScanIterator<String> keys = ScanIterator.scan(redis, ScanArgs.Builder.matches("bench:stream:" + this.runId + "*")
			.limit(500));
		List<String> toDelete = new ArrayList<>();
		keys.forEachRemaining(toDelete::add);
		for (int i = 0; i < toDelete.size(); i += 500) {
			redis.del(toDelete.subList(i, Math.min(toDelete.size(), i + 500)).toArray(String[]::new));
		}
		this.connection.close();
		this.client.shutdown();
		this.admin.close();
	}

	private static String report(List<InterleavedRounds.Row> rows, List<String> verdicts, int messages, int rounds, int warmup, int batch,
			String loadAtStart, Instant started, String command) {
		StringBuilder out = new StringBuilder();
		out.append("Run finished ").append(LocalDateTime.now().withNano(0)).append(" (started ")
			.append(started.atZone(ZoneOffset.systemDefault()).toLocalDateTime().withNano(0)).append("): ")
			.append(messages).append(" entries per round (~10% duplicates), ").append(warmup)
			.append(" warm-up + ").append(rounds).append(" measured rounds per row, variants interleaved; XREADGROUP COUNT ")
			.append(batch).append(".\n\nCommand: `").append(command).append("`\n\nMachine: ").append(Harness.machine())
			.append("; load average at start ").append(loadAtStart).append(", at the end ")
			.append(Harness.loadAverage()).append("; PostgreSQL: ").append(Database.POSTGRESQL.serverVersion())
			.append("\n\n");
		out.append(InterleavedRounds.table(rows, "ratio to hand-ideal",
				(variant) -> "hand-ideal", verdicts));
		return out.toString();
	}



	/** One way of consuming the stream. */
	private abstract static class Variant implements AutoCloseable {

		final String name;

		final String stream;

		final String group;

		final boolean dedups;

		Variant(String name, String stream, String group, boolean dedups) {
			this.name = name;
			this.stream = stream;
			this.group = group;
			this.dedups = dedups;
		}

		abstract void start();

		abstract void stop();

		@Override
		public abstract void close();

	}

	/**
	 * A hand-written consumer loop per thread: XREADGROUP COUNT batch, then per entry the business
	 * transaction (with the insert-or-ignore when {@code dedup}) and XACK after the commit.
	 */
	private final class HandVariant extends Variant {

		private final HikariDataSource dataSource;

		private final JdbcTemplate jdbc;

		private final TransactionTemplate transactions;

		private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

		private final List<Thread> threads = new ArrayList<>();

		private final AtomicLong failures = new AtomicLong();

		private volatile boolean running;

		HandVariant(String name, String stream, String group, int concurrency, boolean dedup) {
			super(name, stream, group, dedup);
			this.dataSource = Database.POSTGRESQL.newDataSource(concurrency + 2);
			this.jdbc = new JdbcTemplate(this.dataSource);
			this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
			for (int i = 0; i < concurrency; i++) {
				this.connections.add(StreamBench.this.client.connect());
			}
		}

		@Override
		void start() {
			this.running = true;
			this.threads.clear();
			for (int i = 0; i < this.connections.size(); i++) {
				RedisCommands<String, String> redis = this.connections.get(i).sync();
				String consumer = "hand-" + i;
				Thread thread = new Thread(() -> consume(redis, consumer), this.name + "-" + i);
				this.threads.add(thread);
				thread.start();
			}
		}

		private void consume(RedisCommands<String, String> redis, String consumer) {
			Consumer<String> me = Consumer.from(this.group, consumer);
			XReadArgs read = XReadArgs.Builder.count(StreamBench.this.batch).block(100);
			while (this.running) {
				List<StreamMessage<String, String>> entries = redis.xreadgroup(me, read,
						XReadArgs.StreamOffset.lastConsumed(this.stream));
				for (StreamMessage<String, String> entry : entries) {
					Map<String, String> body = entry.getBody();
					String key = body.get("key");
					int account = Integer.parseInt(body.get("account"));
					long amount = Long.parseLong(body.get("amount"));
					try {
						this.transactions.executeWithoutResult((status) -> {
							if (this.dedups) {
								Instant now = Instant.now();
								if (this.jdbc.update(LedgerTables.INSERT_OR_IGNORE, this.group, key, "COMPLETED",
										OffsetDateTime.ofInstant(now, ZoneOffset.UTC),
										OffsetDateTime.ofInstant(now.plus(Duration.ofDays(7)), ZoneOffset.UTC)) == 0) {
									return;
								}
							}
							LedgerTables.apply(this.jdbc, key, account, amount);
						});
						redis.xack(this.stream, this.group, entry.getId());
					}
					catch (RuntimeException ex) {
						// Left pending: the round does not finish and is marked WRONG.
						if (this.failures.incrementAndGet() <= 3) {
							System.err.println(this.name + " failed on " + entry.getId() + ": " + ex);
						}
					}
				}
			}
		}

		@Override
		void stop() {
			this.running = false;
			for (Thread thread : this.threads) {
				try {
					thread.join(5000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		@Override
		public void close() {
			stop();
			this.connections.forEach(StatefulRedisConnection::close);
			this.dataSource.close();
		}

	}

	/**
	 * The starter: a Spring Boot application with a {@code @RedisStreamListener @Idempotent} method
	 * (everything auto-configured), whose listener registry is started and stopped per round.
	 */
	private final class StarterVariant extends Variant {

		private final ConfigurableApplicationContext context;

		private final RedisStreamListenerRegistry registry;

		StarterVariant(String name, String stream, String group, int concurrency, String storeType) {
			super(name, stream, group, true);
			Map<String, Object> properties = new LinkedHashMap<>(Database.POSTGRESQL.springProperties(concurrency + 2));
			properties.put("spring.data.redis.host", RedisConnections.host());
			properties.put("spring.data.redis.port", RedisConnections.port());
			properties.put("spring.data.redis.database", RedisConnections.database());
			properties.put("spring.main.banner-mode", "off");
			properties.put("logging.level.root", "warn");
			properties.put("bench.stream", stream);
			properties.put("bench.group", group);
			properties.put("idempotency.store.type", storeType);
			properties.put("idempotency.retention", "1h");
			properties.put("idempotency.redis.key-prefix", "bench:stream:" + StreamBench.this.runId + ":idem:");
			properties.put("idempotency.jdbc.table-name", LedgerTables.DEDUP_TABLE);
			properties.put("idempotency.jdbc.initialize-schema", "never");
			properties.put("idempotency.jdbc.purge.enabled", "false");
			properties.put("idempotency.redis.stream.concurrency", concurrency);
			properties.put("idempotency.redis.stream.batch-size", StreamBench.this.batch);
			properties.put("idempotency.redis.stream.poll-timeout", "100ms");
			properties.put("idempotency.redis.stream.min-idle", "2s");
			properties.put("idempotency.redis.stream.claim-interval", "500ms");
			properties.put("idempotency.redis.stream.max-deliveries", "5");
			this.context = new SpringApplicationBuilder(StreamApp.class).web(WebApplicationType.NONE)
				.properties(properties)
				.logStartupInfo(false)
				.run();
			this.registry = this.context.getBean(RedisStreamListenerRegistry.class);
			this.registry.stop();
		}

		@Override
		void start() {
			this.registry.start();
		}

		@Override
		void stop() {
			this.registry.stop();
		}

		@Override
		public void close() {
			this.registry.stop();
			this.context.close();
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(StreamListener.class)
	static class StreamApp {

	}

	/** The user's listener: the entry's fields, the key from the {@code key} field. */
	public static class StreamListener {

		private final JdbcTemplate jdbc;

		public StreamListener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@RedisStreamListener(stream = "${bench.stream}", group = "${bench.group}")
		@Idempotent(key = "#headers['key']")
		public void onEntry(MapRecord<String, String, String> record) {
			Map<String, String> body = record.getValue();
			LedgerTables.apply(this.jdbc, body.get("key"), Integer.parseInt(body.get("account")), Long.parseLong(body.get("amount")));
		}

	}

}
