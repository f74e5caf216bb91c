package dev.idempotency.benchmarks.filters;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.Machine;
import dev.idempotency.benchmarks.support.Options;
import dev.idempotency.benchmarks.support.RedisConnections;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Replay storm and normal workload through {@code @Idempotent} (JDBC store, PostgreSQL) with the
 * duplicate filters of issue 15 off ({@code none}, the baseline) and on, one Spring Boot application
 * per variant ({@link FilterApp}), with 1 and 4 consumer threads.
 * <p>
 * Each variant first processes the storm's keys once through its method (not timed), so that its
 * dedup table and its filters learned them. A <em>storm</em> round then delivers all of them again,
 * mixed with 10% new keys, shuffled; a <em>normal</em> round delivers new keys of which every tenth is
 * re-sent ({@link FilterRounds}). Variants are interleaved round by round
 * ({@link InterleavedRounds}). Then the variants with a local layer are restarted, rebuild it from
 * their table, and the storm is measured again against {@code none}. Every round checks that each
 * of its new keys was applied exactly once and that no replayed key was applied again; a variant
 * that fails is WRONG and the harness exits with status 1. Last, without a database, the size of a
 * Bloom filter for 10 million keys at 1% ({@link BloomSizing}).
 * <p>
 * {@code scripts/bench.sh --suite filters [--mode short|full] [--storm N] [--normal N] [--warmup N]
 * [--rounds N] [--concurrency 1,4] [--variants none,bloom,redis-recent,bloom+redis-recent,bitmap+redis-recent]
 * [--restart true] [--bloom-sizing true] [--pool-size N]}: short mode (the default) replays 20,000
 * keys with 1 warm-up and 3 measured rounds, full mode 100,000 keys with 2 and 5; {@code +} joins the
 * layers of a chain; {@code --pool-size} overrides Spring Boot's default pool of 10.
 */
public final class FilterBench {

	private FilterBench() {
	}

	public static void main(String[] args) throws Exception {
		Options options = Options.parse(args);
		boolean full = options.text("mode", "short").equals("full");
		int stormKeys = options.integer("storm", full ? 100_000 : 20_000);
		int normalMessages = options.integer("normal", full ? 20_000 : 10_000);
		int warmup = options.integer("warmup", full ? 2 : 1);
		int rounds = options.integer("rounds", full ? 5 : 3);
		List<Integer> concurrencies = options.integers("concurrency", "1,4");
		List<String> names = options.list("variants", "none,bloom,redis-recent,bloom+redis-recent,bitmap+redis-recent")
			.stream()
			.map((name) -> name.replace('+', ','))
			.toList();
		Integer poolSize = options.text("pool-size", null) != null ? options.integer("pool-size", 10) : null;
		String runId = UUID.randomUUID().toString().substring(0, 8);
		String loadAtStart = Machine.loadAverage();
		Instant started = Instant.now();
		List<FilterReport.Measured> measured = new ArrayList<>();
		List<String> verdicts = new ArrayList<>();
		List<String> preloads = new ArrayList<>();
		Map<String, String> memory = new LinkedHashMap<>();
		Map<String, Map<String, double[]>> rebuilds = new LinkedHashMap<>();
		List<FilterApp> apps = new ArrayList<>();
		try (HikariDataSource admin = Database.POSTGRESQL.newDataSource(2)) {
			JdbcTemplate jdbc = new JdbcTemplate(admin);
			FilterLedger.createAndReset(jdbc);
			FilterRounds workloads = new FilterRounds(jdbc, stormKeys, normalMessages);
			try {
				for (String name : names) {
					FilterLedger.createDedupTable(jdbc, FilterApp.dedupTable(name));
					FilterApp app = new FilterApp(name, runId, poolSize);
					apps.add(app);
					preloads.add(workloads.preload(app));
					System.out.println(preloads.get(preloads.size() - 1));
				}
				for (int consumers : concurrencies) {
					measured.addAll(phase(apps, "storm", consumers, warmup, rounds, workloads, verdicts));
					measured.addAll(phase(apps, "normal", consumers, warmup, rounds, workloads, verdicts));
				}
				for (FilterApp app : apps) {
					for (String layer : FilterApp.LOCAL_LAYERS) {
						double bytes = app.memoryBytes(layer);
						if (bytes >= 0) {
							memory.put(app.name() + " (" + layer + ")", String.format("%,.0f bytes", bytes));
						}
					}
				}
				if (Boolean.parseBoolean(options.text("restart", "true"))) {
					List<FilterApp> afterRestart = new ArrayList<>();
					for (FilterApp app : apps) {
						if (app.hasLocalLayer()) {
							rebuilds.put(app.name(), app.restart());
							afterRestart.add(app);
						}
						else if (app.name().equals(FilterReport.BASELINE)) {
							afterRestart.add(0, app);
						}
					}
					for (int consumers : concurrencies) {
						measured.addAll(phase(afterRestart, "storm after restart", consumers, warmup, rounds, workloads,
								verdicts));
					}
				}
			}
			finally {
				apps.forEach(FilterApp::close);
				deleteRedisKeys("bench:filters:" + runId + ":");
			}
		}
		String sizing = Boolean.parseBoolean(options.text("bloom-sizing", "true")) ? BloomSizing.measure() : "";
		boolean wrong = measured.stream().anyMatch(FilterReport.Measured::wrong)
				|| preloads.stream().anyMatch((line) -> line.contains("WRONG"));
		String report = HarnessReport.finished(started) + String.format(
				": %s mode, replay storm of %,d already processed keys + %,d new (10%%) per round, normal workload of "
						+ "%,d messages (~10%% re-sent) per round; %d warm-up + %d measured rounds per row, variants "
						+ "interleaved; JDBC store on PostgreSQL, Spring Boot's default Hikari pool%s; Redis "
						+ "recent-keys TTL 6h.",
				full ? "full" : "short", stormKeys, stormKeys / 10, normalMessages, warmup, rounds,
				(poolSize != null) ? " resized to " + poolSize : " (10)")
				+ "\n\n" + HarnessReport.commandAndMachine("FilterBench " + String.join(" ", args), loadAtStart)
				+ "\n\nPre-load (not timed, 4 threads): " + String.join("; ", preloads) + ".\n\n"
				+ FilterReport.table(measured) + "\n" + FilterReport.memory(memory) + "\n"
				+ (rebuilds.isEmpty() ? "" : "Rebuilds at restart:\n\n" + FilterReport.rebuilds(rebuilds) + "\n")
				+ "Aims of issue 15 (medians):\n\n" + FilterReport.aims(measured) + "\n"
				+ FilterReport.stormBounds(measured, stormKeys, normalMessages) + "\n" + sizing + "\n\nRounds:\n\n- "
				+ String.join("\n- ", verdicts) + "\n";
		HarnessReport.publish("filters", report);
		if (wrong) {
			System.err.println("A variant applied a message twice or lost one: see WRONG above.");
			System.exit(1);
		}
	}

	private static List<FilterReport.Measured> phase(List<FilterApp> apps, String workload, int consumers, int warmup,
			int rounds, FilterRounds workloads, List<String> verdicts) throws Exception {
		List<FilterRounds.Lane> lanes = apps.stream().map((app) -> new FilterRounds.Lane(app, workload)).toList();
		List<InterleavedRounds.Row> rows = InterleavedRounds.run(lanes, FilterRounds.Lane::label, consumers, warmup,
				rounds, (lane, round) -> workload.equals("normal") ? workloads.normal(lane, consumers, round)
						: workloads.storm(lane, consumers, round),
				verdicts);
		return FilterReport.measured(lanes, rows);
	}

	private static void deleteRedisKeys(String prefix) {
		try (RedisConnections redis = new RedisConnections(prefix)) {
			RedisCommands<String, String> commands = redis.lettuce().sync();
			ScanCursor cursor = ScanCursor.INITIAL;
			do {
				KeyScanCursor<String> page = commands.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(1000));
				if (!page.getKeys().isEmpty()) {
					commands.del(page.getKeys().toArray(String[]::new));
				}
				cursor = page;
			}
			while (!cursor.isFinished());
		}
	}

}
