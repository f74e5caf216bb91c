package dev.idempotency.benchmarks.bootjdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.report.RoundsTable;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Harness;

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
		Harness harness = Harness.start("BootJdbcBench", args, 4000, 9, 2, "hand,starter");
		List<Database> databases = harness.options()
			.list("db", "postgresql,mariadb")
			.stream()
			.map(Database::of)
			.toList();
		List<Integer> threadCounts = harness.options().integers("threads", "1,4");
		String baseline = harness.variants().get(0);
		StringBuilder report = new StringBuilder();
		for (Database database : databases) {
			List<String> setups = new ArrayList<>();
			for (int threads : threadCounts) {
				try (BootJdbcRounds bench = new BootJdbcRounds(database, harness.messages(), threads)) {
					harness.measure((name) -> {
						BootJdbcApp app = new BootJdbcApp(name, database);
						if (threads == threadCounts.get(0)) {
							setups.add(app.describe());
						}
						return app;
					}, BootJdbcApp::name, threads, bench::run);
				}
			}
			report.append("### ").append(database.productName()).append("\n\n")
				.append(harness.commandAndMachine(database))
				.append("\n\nApplications: ").append(String.join("; ", setups)).append("\n\n")
				.append(RoundsTable.pairs(harness.rows(), baseline, "threads")).append('\n')
				.append(harness.table(Map.of("ratio to " + baseline, (variant) -> baseline))).append('\n');
		}
		HarnessReport.publish("bootjdbc", harness.summary(null, "messages", "Spring Boot's default pool, transaction"
				+ " manager and the database's default isolation. " + classpath()) + report);
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
