package dev.idempotency.benchmarks.kafka;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Harness;

/**
 * Kafka listener messages per second, end to end, on PostgreSQL or MariaDB ({@code --db}) and an
 * in-process KRaft broker: {@code @KafkaListener @Idempotent} against the same listener with the
 * hand-written insert-or-ignore, for record and for batch listeners.
 * <p>
 * Every variant is a Spring Boot application ({@link KafkaListenerApp}) with spring-kafka's
 * auto-configured container factory (ack mode {@code BATCH}, {@code max.poll.records} 500), Spring
 * Boot's default connection pool and the database's default isolation (READ COMMITTED on PostgreSQL,
 * REPEATABLE READ on MariaDB): what an application that tunes nothing gets. Each has one listener on
 * its own topic of 4 partitions. The container starts once and is paused between rounds.
 * Each round ({@link KafkaRounds}): the tables are reset, {@code --messages} records are produced
 * (every tenth re-sends the record five positions earlier with the same key, ~10% duplicates, see
 * {@link dev.idempotency.benchmarks.support.MessageStream}; keyed, so a duplicate lands on its
 * original's partition), then the clock starts, the container resumes, and the clock stops when the
 * group's committed offsets reach the end of every partition (polled every 10 ms). The end state is
 * then checked (ledger rows, keys applied twice, all balances). Variants are interleaved round by
 * round; the first {@code --warmup} rounds are not counted.
 * <p>
 * {@code --keying account} partitions every variant's records by account instead (the partition
 * the default partitioner gives a record keyed by its account; the record key stays the business
 * key the listeners read): each account is then credited from one partition, by one consumer, so
 * that concurrent polls never write the same rows. Kafka's usual partitioning by entity, and what
 * transaction batching with several consumers needs (with the default keying, its polls credit the
 * same accounts in different orders and deadlock on PostgreSQL). The default keying is unchanged.
 * <p>
 * Variants: {@code plain-record} ({@link PlainRecordListener}: the record baseline, plain JDBC and
 * {@code AckMode.MANUAL}); {@code hand-record} ({@link HandRecordListener}: the record baseline through
 * Spring's {@code TransactionTemplate} and {@code JdbcTemplate});
 * {@code starter-record} ({@link StarterRecordListener}); {@code starter-record-batched} (the same
 * listener with {@code idempotency.kafka.transaction-batching.enabled}: each poll in one
 * transaction; with several consumers, two polls that credit the same accounts in poll order can
 * deadlock, and the poll the database rolls back runs again record by record); {@code hand-batch}
 * ({@link HandBatchListener}: the batch baseline); {@code starter-batch}
 * ({@link StarterBatchListener}); {@code hand-bulk-batch} and {@code starter-bulk-batch}: the same
 * two batch listeners with their business writes sent as two JDBC batches instead of record by
 * record. The hand variants run with {@code idempotency.enabled=false}, as an application without the
 * starter.
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.kafka.KafkaBench [--db postgresql|mariadb]
 * [--messages 10000] [--rounds 5] [--warmup 3] [--concurrency 1,4] [--keying business-key|account]
 * [--variants plain-record,hand-record,starter-record,starter-record-batched,hand-batch,starter-batch,
 * hand-bulk-batch,starter-bulk-batch]};
 * normally through {@code scripts/bench.sh --suite kafka}. This class reads the options, runs the
 * rounds at each concurrency and writes the report
 * ({@code benchmarks/target/bench-results/kafka-<db>-<timestamp>.md}).
 */
public final class KafkaBench {

	private KafkaBench() {
	}

	public static void main(String[] args) throws Exception {
		Harness harness = Harness.start("KafkaBench", args, 10000, 5, 3,
				"plain-record,hand-record,starter-record,starter-record-batched,hand-batch,starter-batch");
		Database database = harness.database();
		boolean byAccount = keyedByAccount(harness.options().text("keying", "business-key"));
		try (KafkaRounds bench = new KafkaRounds(harness.messages(), database, byAccount)) {
			harness.measureAll(bench::create, KafkaListenerApp::name, bench::run);
		}
		String report = harness.summary(database, "records", KafkaRounds.PARTITIONS
				+ " partitions, ack mode BATCH (plain-record: MANUAL), max.poll.records 500,"
				+ " Spring Boot's default pool, the database's default isolation; records partitioned by "
				+ (byAccount ? "account (each account credited by one consumer)." : "business key."))
				+ harness.commandAndMachine(database) + "; Kafka: in-process EmbeddedKafkaKraftBroker, 1 broker\n\n"
				+ harness.table(ratios());
		HarnessReport.publish("kafka-" + database.id(), report);
	}

	/**
	 * Reads {@code --keying}: {@code business-key} (the default) or {@code account}.
	 * @return whether the records are partitioned by account
	 */
	private static boolean keyedByAccount(String keying) {
		return switch (keying) {
			case "business-key" -> false;
			case "account" -> true;
			default -> throw new IllegalArgumentException(
					"Unknown --keying '" + keying + "': use business-key or account");
		};
	}

	/**
	 * Record listeners against both record baselines (the plain JDBC one and the one through Spring's
	 * transaction machinery); batch listeners against the hand-written batch listener with the same
	 * business writes; every variant against the starter's record listener (batch over record).
	 */
	private static Map<String, Function<String, String>> ratios() {
		Map<String, Function<String, String>> ratios = new LinkedHashMap<>();
		ratios.put("ratio to plain-record (batch: its hand-batch)",
				(variant) -> variant.endsWith("batch") ? handBatchOf(variant) : "plain-record");
		ratios.put("ratio to hand-record (batch: its hand-batch)",
				(variant) -> variant.endsWith("batch") ? handBatchOf(variant) : "hand-record");
		ratios.put("ratio to starter-record", (variant) -> "starter-record");
		return ratios;
	}

	/** The hand-written batch listener with the same business writes as {@code variant}. */
	private static String handBatchOf(String variant) {
		return variant.contains("bulk") ? "hand-bulk-batch" : "hand-batch";
	}

}
