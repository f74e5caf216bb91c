package dev.idempotency.benchmarks.share;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Harness;

/**
 * Kafka share-group (KIP-932) listener records per second, end to end, on PostgreSQL (or MariaDB,
 * {@code --db}) and an in-process KRaft broker with share groups on: the starter's
 * {@code @Idempotent} share-group {@code @KafkaListener} ({@link StarterShareListener},
 * {@code ShareAckMode.EXPLICIT}) against a hand-written share listener in {@code ShareAckMode.MANUAL}
 * ({@link HandShareListener}) that inserts the record's key with insert-or-ignore and applies the
 * business writes in one JDBC transaction, and accepts after the commit.
 * <p>
 * Every variant is a Spring Boot application ({@link ShareListenerApp}) with the share consumer's
 * defaults, Spring Boot's default connection pool and the database's default isolation. Each has its
 * own topic ({@value ShareRounds#PARTITIONS} partitions) and share group. Each round
 * ({@link ShareRounds}): the tables are reset, {@code --messages} records are produced (every tenth
 * re-sends the key five positions earlier, ~10% duplicates), then the clock starts, the container
 * starts, and the clock stops once the listener accepted every record, counted on the listener side
 * ({@link Acceptances}, polled every 10 ms). The container is then stopped and the end state checked
 * (one effect per distinct key, every record accepted once). Variants are interleaved round by round;
 * the first {@code --warmup} rounds are not counted.
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.share.ShareBench [--db postgresql|mariadb]
 * [--messages 10000] [--rounds 5] [--warmup 2] [--concurrency 1,4] [--variants hand,starter]};
 * normally through {@code scripts/bench.sh --suite share}. Writes
 * {@code benchmarks/target/bench-results/share-<db>-<timestamp>.md}.
 */
public final class ShareBench {

	private ShareBench() {
	}

	public static void main(String[] args) throws Exception {
		Harness harness = Harness.start("ShareBench", args, 10000, 5, 2, "hand,starter");
		Database database = harness.database();
		try (ShareRounds bench = new ShareRounds(harness.messages(), database)) {
			harness.measureAll(bench::create, ShareListenerApp::name, bench::run);
		}
		String report = harness.summary(database, "records", ShareRounds.PARTITIONS + " partitions, one share group"
				+ " per variant, the share consumer's defaults, Spring Boot's default pool, the database's default"
				+ " isolation.")
				+ harness.commandAndMachine(database)
				+ "; Kafka: in-process EmbeddedKafkaKraftBroker, 1 broker, share groups on\n\n"
				+ harness.table(ratios());
		HarnessReport.publish("share-" + database.id(), report);
	}

	private static Map<String, Function<String, String>> ratios() {
		Map<String, Function<String, String>> ratios = new LinkedHashMap<>();
		ratios.put("ratio to hand", (variant) -> "hand");
		return ratios;
	}

}
