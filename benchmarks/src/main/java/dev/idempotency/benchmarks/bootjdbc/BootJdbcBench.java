package dev.idempotency.benchmarks.bootjdbc;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.report.RoundsTable;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.Machine;
import dev.idempotency.benchmarks.support.Options;
import dev.idempotency.benchmarks.support.Stats;

/**
 * Spring Boot's defaults on the JDBC path (issue 33, item 3): two minimal applications, each a plain
 * {@code @SpringBootApplication} given only {@code spring.datasource.url}, {@code username} and
 * {@code password} (Spring Boot's Hikari pool and {@code JdbcTransactionManager}, the server's default
 * isolation: REPEATABLE READ on MariaDB). {@code hand}: a {@code @Transactional} bean that inserts the
 * key with insert-or-ignore and applies the business writes ({@code UPDATE} an account, {@code INSERT}
 * a ledger row) with {@code JdbcTemplate} if it was inserted. {@code starter}: the same business writes
 * in an {@code @Idempotent} method. 10% duplicates, the variants' rounds interleaved (their order
 * alternating), every round verified ({@link BootJdbcRounds}), on each database and thread count.
 * <p>
 * {@code scripts/bench.sh --suite bootjdbc} runs it on a classpath without the benchmark module's
 * Redis, Kafka, RabbitMQ, web and Micrometer jars, so each application is what
 * {@code spring-boot-starter-jdbc} and this starter give; the report says what else was found.
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.bootjdbc.BootJdbcBench [--db postgresql,mariadb]
 * [--messages 4000] [--rounds 9] [--warmup 2] [--threads 1,4] [--variants hand,starter]}. Writes
 * {@code benchmarks/target/bench-results/bootjdbc-<timestamp>.md}.
 */
public final class BootJdbcBench {

	private static final Map<String, String> NOT_IN_A_MINIMAL_APP = Map.of(
			"org.springframework.data.redis.connection.RedisConnectionFactory", "Spring Data Redis",
			"org.springframework.kafka.core.KafkaTemplate", "Spring for Apache Kafka",
			"org.springframework.amqp.core.Message", "Spring AMQP",
			"org.springframework.web.servlet.DispatcherServlet", "Spring MVC",
			"io.micrometer.core.instrument.MeterRegistry", "Micrometer");

	private BootJdbcBench() {
	}

	public static void main(String[] args) throws Exception {
		Options options = Options.parse(args);
		List<Database> databases = options.list("db", "postgresql,mariadb").stream().map(Database::of).toList();
		int messages = options.integer("messages", 4000);
		int rounds = options.integer("rounds", 9);
		int warmup = options.integer("warmup", 2);
		List<Integer> threadCounts = options.integers("threads", "1,4");
		List<String> variants = options.list("variants", "hand,starter");
		String loadAtStart = Machine.loadAverage();
		Instant started = Instant.now();
		StringBuilder report = new StringBuilder();
		for (Database database : databases) {
			List<InterleavedRounds.Row> rows = new ArrayList<>();
			List<String> verdicts = new ArrayList<>();
			List<String> setups = new ArrayList<>();
			for (int threads : threadCounts) {
				try (BootJdbcRounds bench = new BootJdbcRounds(database, messages, threads)) {
					rows.addAll(InterleavedRounds.measure(variants, (name) -> {
						BootJdbcApp app = new BootJdbcApp(name, database);
						if (threads == threadCounts.get(0)) {
							setups.add(app.describe());
						}
						return app;
					}, BootJdbcApp::name, threads, warmup, rounds, bench::run, verdicts));
				}
			}
			report.append("### ").append(database.productName()).append("\n\n")
				.append(HarnessReport.commandAndMachine("BootJdbcBench " + String.join(" ", args), loadAtStart,
						database))
				.append("\n\nApplications: ").append(String.join("; ", setups)).append("\n\n")
				.append(pairs(rows, variants)).append('\n')
				.append(RoundsTable.of(rows, ratios(variants), verdicts)).append('\n');
		}
		HarnessReport.publish("bootjdbc", HarnessReport.finished(started) + ": " + messages
				+ " messages per round (~10% duplicates), " + warmup + " warm-up + " + rounds
				+ " measured rounds per row, variants interleaved; Spring Boot's default pool, transaction manager"
				+ " and the database's default isolation. " + classpath() + "\n\n" + report);
	}

	/** The ratio of each variant to the first, per round (the pair measured one after the other). */
	private static String pairs(List<InterleavedRounds.Row> rows, List<String> variants) {
		StringBuilder out = new StringBuilder("| pair | threads | median of per-round ratios | quartiles | rounds |\n"
				+ "|---|---:|---:|---:|---:|\n");
		String baseline = variants.get(0);
		for (InterleavedRounds.Row row : rows) {
			if (row.variant().equals(baseline)) {
				continue;
			}
			rows.stream()
				.filter((other) -> other.variant().equals(baseline) && other.concurrency() == row.concurrency())
				.findFirst()
				.ifPresent((base) -> {
					List<Double> ratios = new ArrayList<>();
					for (int i = 0; i < Math.min(row.rates().size(), base.rates().size()); i++) {
						ratios.add(row.rates().get(i) / base.rates().get(i));
					}
					out.append(String.format("| %s / %s | %d | **%.3f** | %.3f–%.3f | %d |%n", row.variant(), baseline,
							row.concurrency(), Stats.median(ratios), Stats.percentile(ratios, 25),
							Stats.percentile(ratios, 75), ratios.size()));
				});
		}
		return out.toString();
	}

	private static Map<String, Function<String, String>> ratios(List<String> variants) {
		Map<String, Function<String, String>> ratios = new LinkedHashMap<>();
		ratios.put("ratio to " + variants.get(0), (variant) -> variants.get(0));
		return ratios;
	}

	/** Which of the libraries a minimal JDBC application does not have were on the classpath. */
	private static String classpath() {
		List<String> present = new ArrayList<>();
		NOT_IN_A_MINIMAL_APP.forEach((type, library) -> {
			try {
				Class.forName(type, false, BootJdbcBench.class.getClassLoader());
				present.add(library);
			}
			catch (ClassNotFoundException ex) {
				// Not there, as in a minimal application.
			}
		});
		return present.isEmpty() ? "Classpath: no Redis, Kafka, RabbitMQ, web or Micrometer jars."
				: "Classpath also had: " + String.join(", ", present) + " (their auto-configurations ran).";
	}

}
