package dev.idempotency.benchmarks.jmh;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.RedisConnections;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.JavaFlightRecorderProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;

/**
 * Runs {@link DedupBenchmark} for every thread count, database and variant asked for, then prints a
 * table of median messages per second, the ratio to the hand-written ideal (variant 2) of the same
 * database and thread count measured in the same run, and the correctness verdict of each trial.
 * <p>
 * Arguments (all optional): {@code --mode quick|full}, {@code --db postgresql,mariadb},
 * {@code --threads 1,4}, {@code --variants all|jdbc|redis|name,...}, {@code --forks N},
 * {@code --warmup N}, {@code --warmup-time SECONDS}, {@code --rounds N}, {@code --round-time SECONDS},
 * {@code --passes N} (run the whole matrix N times, one after the other, so that every variant meets
 * the machine's background load at several moments; the median is over the rounds of all passes),
 * {@code --jfr} (one JFR recording per fork under the results directory), {@code --results DIR},
 * {@code --docs FILE} (replace the results block of that Markdown file), {@code --note TEXT} (printed
 * above the table).
 */
public final class BenchMain {

	static final String BLOCK_START = "<!-- bench-results:start -->";

	static final String BLOCK_END = "<!-- bench-results:end -->";

	private BenchMain() {
	}

	private static double loadAtStart;

	public static void main(String[] args) throws RunnerException, IOException {
		loadAtStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
		Map<String, String> options = parse(args);
		boolean full = "full".equals(options.getOrDefault("mode", "quick"));
		int forks = Integer.parseInt(options.getOrDefault("forks", full ? "2" : "1"));
		int warmups = Integer.parseInt(options.getOrDefault("warmup", full ? "3" : "2"));
		int warmupSeconds = Integer.parseInt(options.getOrDefault("warmup-time", full ? "5" : "2"));
		int rounds = Integer.parseInt(options.getOrDefault("rounds", full ? "5" : "3"));
		int roundSeconds = Integer.parseInt(options.getOrDefault("round-time", full ? "5" : "2"));
		List<String> databases = list(options.getOrDefault("db", "postgresql,mariadb"));
		List<Integer> threadCounts = list(options.getOrDefault("threads", "1,4")).stream()
			.map(Integer::valueOf)
			.toList();
		List<String> variants = variants(options.getOrDefault("variants", "all"));
		Path results = Path.of(options.getOrDefault("results", "benchmarks/target/bench-results"));
		Files.createDirectories(results);
		String stamp = ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
		Path verdicts = results.resolve("verdicts-" + stamp + ".tsv");

		int passes = Integer.parseInt(options.getOrDefault("passes", "1"));
		List<Row> rows = new ArrayList<>();
		for (int pass = 1; pass <= passes; pass++) {
			for (int threads : threadCounts) {
				ChainedOptionsBuilder jmh = new OptionsBuilder().include(DedupBenchmark.class.getName() + ".deliver")
					.param("variant", variants.toArray(String[]::new))
					.param("db", databases.toArray(String[]::new))
					.threads(threads)
					.forks(forks)
					.warmupIterations(warmups)
					.warmupTime(TimeValue.seconds(warmupSeconds))
					.measurementIterations(rounds)
					.measurementTime(TimeValue.seconds(roundSeconds))
					.jvmArgsAppend("-Xms1g", "-Xmx1g", "-Dbench.verdicts=" + verdicts.toAbsolutePath(),
							"-Dlogging.level.root=WARN")
					.shouldFailOnError(false)
					.result(results.resolve("jmh-" + stamp + "-p" + pass + "-t" + threads + ".json").toString())
					.resultFormat(org.openjdk.jmh.results.format.ResultFormatType.JSON);
				for (String key : List.of("bench.postgresql.url", "bench.mariadb.url", "bench.redis.host",
						"bench.redis.port", "bench.redis.database")) {
					if (System.getProperty(key) != null) {
						jmh.jvmArgsAppend("-D" + key + "=" + System.getProperty(key));
					}
				}
				if (options.containsKey("jfr")) {
					jmh.addProfiler(JavaFlightRecorderProfiler.class,
							"dir=" + results.resolve("jfr-" + stamp).toAbsolutePath());
				}
				Collection<RunResult> runs = new Runner(jmh.build()).run();
				for (RunResult run : runs) {
					BenchmarkParams params = run.getParams();
					List<Double> scores = new ArrayList<>();
					for (BenchmarkResult fork : run.getBenchmarkResults()) {
						for (IterationResult round : fork.getIterationResults()) {
							scores.add(round.getPrimaryResult().getScore());
						}
					}
					Row row = find(rows, params.getParam("variant"), params.getParam("db"), params.getThreads());
					if (row == null) {
						rows.add(new Row(params.getParam("variant"), params.getParam("db"), params.getThreads(), scores));
					}
					else {
						row.scores().addAll(scores);
					}
				}
			}
		}
		Map<String, String[]> verdictByRow = readVerdicts(verdicts);
		String report = report(rows, verdictByRow, variants, databases, threadCounts, options, full, passes * forks,
				warmups, warmupSeconds, rounds, roundSeconds);
		Path reportFile = results.resolve("report-" + stamp + ".md");
		Files.writeString(reportFile, report, StandardCharsets.UTF_8);
		System.out.println();
		System.out.println(report);
		System.out.println("Report written to " + reportFile);
		if (options.containsKey("docs")) {
			replaceBlock(Path.of(options.get("docs")), report);
			System.out.println("Results block of " + options.get("docs") + " replaced");
		}
	}

	private static String report(List<Row> rows, Map<String, String[]> verdicts, List<String> variants,
			List<String> databases, List<Integer> threadCounts, Map<String, String> options, boolean full, int forks,
			int warmups, int warmupSeconds, int rounds, int roundSeconds) {
		StringBuilder out = new StringBuilder();
		out.append(BLOCK_START).append('\n');
		if (options.containsKey("note")) {
			out.append("**").append(options.get("note")).append("**\n\n");
		}
		out.append("Run finished ")
			.append(ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME).substring(0, 19))
			.append(", mode `")
			.append(full ? "full" : "quick")
			.append("`: per row ")
			.append(forks)
			.append(" fork(s) in all passes, ")
			.append(warmups)
			.append(" × ")
			.append(warmupSeconds)
			.append(" s warm-up, ")
			.append(rounds)
			.append(" × ")
			.append(roundSeconds)
			.append(" s measured rounds; msgs/s is the median of the measured rounds.\n\n");
		out.append("Command: `").append(System.getProperty("bench.command", "scripts/bench.sh")).append("`\n\n");
		out.append("Machine: ").append(machine(databases)).append("\n\n");
		out.append("| variant | database | threads | msgs/s (median) | rounds min–max | ratio to 2 | correctness |\n");
		out.append("|---|---|---:|---:|---:|---:|---|\n");
		List<String> details = new ArrayList<>();
		for (int threads : threadCounts) {
			for (String db : databases) {
				Row baseline = find(rows, Variants.BASELINE, db, threads);
				for (String variant : variants) {
					Row row = find(rows, variant, db, threads);
					String[] verdict = verdicts.get(variant + "/" + db + "/" + threads);
					String status = (verdict != null) ? verdict[0] : "NO VERDICT";
					if (verdict != null) {
						details.add("- " + variant + " / " + db + " / " + threads + " thread(s): " + status + " — "
								+ verdict[1]);
					}
					if (row == null || row.scores.isEmpty()) {
						out.append(String.format("| %s | %s | %d | not measured | | | %s |%n", Variants.label(variant),
								db, threads, status));
						continue;
					}
					double median = row.median();
					String ratio = (baseline != null && !baseline.scores.isEmpty())
							? String.format("%.2f×", median / baseline.median()) : "n/a";
					String shown = "WRONG".equals(status) ? "**WRONG**" : status;
					out.append(String.format("| %s | %s | %d | %,.0f | %,.0f–%,.0f | %s | %s |%n",
							Variants.label(variant), db, threads, median, row.min(), row.max(), ratio, shown));
				}
			}
		}
		out.append("\nVerification of each row (after the run, against the expected balances and ledger):\n\n");
		details.forEach((line) -> out.append(line).append('\n'));
		out.append(BLOCK_END).append('\n');
		return out.toString();
	}

	private static String machine(List<String> databases) {
		StringBuilder machine = new StringBuilder();
		machine.append(Runtime.getRuntime().availableProcessors()).append(" CPUs (nproc), ");
		machine.append(memory()).append(" RAM, ");
		machine.append(System.getProperty("java.vm.name"))
			.append(' ')
			.append(System.getProperty("java.runtime.version"))
			.append(", ");
		machine.append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"));
		machine.append(", load average at start ")
			.append(String.format("%.2f", loadAtStart))
			.append(", at the end ")
			.append(String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
		for (String db : databases) {
			machine.append("; ").append(Database.of(db).serverVersion());
		}
		machine.append("; Redis ").append(redisVersion());
		return machine.toString();
	}

	private static String memory() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
				if (line.startsWith("MemTotal:")) {
					long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
					return String.format("%.1f GiB", kb / 1024.0 / 1024.0);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// not Linux
		}
		return "unknown";
	}

	private static String redisVersion() {
		RedisClient client = RedisClient.create(RedisURI.builder()
			.withHost(RedisConnections.host())
			.withPort(RedisConnections.port())
			.build());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return Arrays.stream(connection.sync().info("server").split("\r?\n"))
				.filter((line) -> line.startsWith("redis_version:"))
				.map((line) -> line.substring("redis_version:".length()))
				.findFirst()
				.orElse("unknown");
		}
		catch (RuntimeException ex) {
			return "unreachable";
		}
		finally {
			client.shutdown();
		}
	}

	private static Row find(List<Row> rows, String variant, String db, int threads) {
		return rows.stream()
			.filter((row) -> row.variant.equals(variant) && row.db.equals(db) && row.threads == threads)
			.findFirst()
			.orElse(null);
	}

	private static Map<String, String[]> readVerdicts(Path file) throws IOException {
		Map<String, String[]> verdicts = new LinkedHashMap<>();
		if (!Files.exists(file)) {
			return verdicts;
		}
		for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
			String[] fields = line.split("\t", 5);
			if (fields.length == 5) {
				String key = fields[0] + "/" + fields[1] + "/" + fields[2];
				String[] previous = verdicts.get(key);
				// Several forks: any non-OK verdict wins.
				if (previous == null || "OK".equals(previous[0])) {
					verdicts.put(key, new String[] { fields[3], fields[4] });
				}
			}
		}
		return verdicts;
	}

	static void replaceBlock(Path file, String block) throws IOException {
		String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
		int start = text.indexOf(BLOCK_START);
		int end = text.indexOf(BLOCK_END);
		String updated;
		if (start >= 0 && end > start) {
			updated = text.substring(0, start) + block.strip() + text.substring(end + BLOCK_END.length());
		}
		else {
			updated = text + "\n" + block;
		}
		Files.writeString(file, updated, StandardCharsets.UTF_8);
	}

	private static List<String> variants(String spec) {
		List<String> names = new ArrayList<>();
		for (String part : list(spec)) {
			switch (part) {
				case "all" -> {
					names.addAll(Variants.jdbcNames());
					names.addAll(Variants.redisNames());
				}
				case "jdbc" -> names.addAll(Variants.jdbcNames());
				case "redis" -> names.addAll(Variants.redisNames());
				default -> names.add(part);
			}
		}
		if (!names.contains(Variants.BASELINE)) {
			names.add(0, Variants.BASELINE); // every ratio needs the baseline of the same run
		}
		return names.stream().distinct().toList();
	}

	private static List<String> list(String value) {
		return Arrays.stream(value.split(",")).map(String::trim).filter((s) -> !s.isEmpty()).toList();
	}

	private static Map<String, String> parse(String[] args) {
		Map<String, String> options = new LinkedHashMap<>();
		for (int i = 0; i < args.length; i++) {
			String arg = args[i];
			if (!arg.startsWith("--")) {
				throw new IllegalArgumentException("Unexpected argument '" + arg + "'");
			}
			String name = arg.substring(2);
			if (name.contains("=")) {
				options.put(name.substring(0, name.indexOf('=')), name.substring(name.indexOf('=') + 1));
			}
			else if (name.equals("jfr")) {
				options.put(name, "true");
			}
			else {
				options.put(name, Objects.requireNonNull((i + 1 < args.length) ? args[++i] : null,
						"--" + name + " needs a value"));
			}
		}
		return options;
	}

	/** One row of the table: the measured rounds of one variant, database and thread count. */
	record Row(String variant, String db, int threads, List<Double> scores) {

		double median() {
			List<Double> sorted = this.scores.stream().sorted().toList();
			int n = sorted.size();
			return (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
		}

		double min() {
			return this.scores.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
		}

		double max() {
			return this.scores.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
		}

	}

}
