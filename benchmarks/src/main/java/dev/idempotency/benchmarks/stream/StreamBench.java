package dev.idempotency.benchmarks.stream;

import java.util.Map;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Harness;
import dev.idempotency.benchmarks.support.PoolSettings;

/**
 * Issue 4: Redis Stream messages per second, end to end, through {@code @RedisStreamListener} +
 * {@code @Idempotent}, against hand-written consumer loops on the same stream, on PostgreSQL or MariaDB
 * ({@code --db}, the database's default isolation).
 * <p>
 * Each round of each variant ({@link StreamRounds}): the stream is deleted, refilled with
 * {@code --messages} entries (every tenth re-sends the key of the entry five positions earlier, ~10%
 * duplicates, see {@link dev.idempotency.benchmarks.support.MessageStream}), the consumer group is
 * created at {@code 0}, the benchmark tables are reset; then the clock starts, the variant's consumers
 * start, and the clock stops when the group has read the last entry and nothing is pending (polled
 * every 5 ms with {@code XINFO GROUPS}). The consumers are stopped and the end state is checked:
 * ledger rows, keys applied twice, all balances, nothing pending, nothing dead-lettered. Variants are
 * interleaved round by round (rotating their order), so all see the same machine load; the first
 * {@code --warmup} rounds are not counted.
 * <p>
 * Variants: {@code hand-plain} (XREADGROUP, business transaction, XACK; no dedup, so duplicates are
 * applied and it is checked against "every delivery applied"); {@code hand-ideal} (the same with the
 * insert-or-ignore of variant 2 in the business transaction, XACK after commit: the baseline);
 * {@code starter-jdbc} (transactional mode: JDBC store, XACK after commit); {@code starter-jdbc-batched}
 * (the same listener with {@code idempotency.redis.stream.transaction-batching.enabled}: the entries of
 * each read in one transaction, one XACK after its commit); {@code starter-redis}
 * (redis-atomic mode: Redis store on the stream's server, the business transaction in the database, one
 * Lua script completes the key and XACKs after commit).
 * <p>
 * Every variant runs on Spring Boot's default pool ({@code --pool boot-default}: no Hikari settings,
 * 10 connections, auto-commit on; the hand-written loops get the same Hikari pool), or with
 * {@code --pool tuned} on the benchmark's pool of {@code concurrency + 2} connections, all kept open
 * (the pool of the runs published before this option).
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.stream.StreamBench [--db postgresql|mariadb] [--messages 3000] [--rounds 5]
 * [--warmup 1] [--concurrency 1,4] [--batch 10] [--pool boot-default|tuned]
 * [--variants hand-plain,hand-ideal,starter-jdbc,starter-jdbc-batched,starter-redis]};
 * normally through {@code scripts/bench.sh --suite streams}. This class reads the options, runs the
 * rounds at each concurrency and writes the report
 * ({@code benchmarks/target/bench-results/streams-<db>-<timestamp>.md}).
 */
public final class StreamBench {

	private StreamBench() {
	}

	public static void main(String[] args) throws Exception {
		Harness harness = Harness.start("StreamBench", args, 3000, 5, 1,
				"hand-plain,hand-ideal,starter-jdbc,starter-jdbc-batched,starter-redis");
		Database database = harness.database();
		int batch = harness.options().integer("batch", 10);
		PoolSettings pool = PoolSettings.of(harness.options().text("pool", PoolSettings.BOOT_DEFAULT.id()));
		try (StreamRounds bench = new StreamRounds(harness.messages(), batch, pool, database)) {
			for (int concurrency : harness.concurrencies()) {
				harness.measure((name) -> bench.create(name, concurrency), StreamConsumer::name, concurrency,
						(variant, round) -> bench.run(variant, concurrency, round));
			}
		}
		String report = harness.summary(database, "entries",
				"XREADGROUP COUNT " + batch + "; " + pool.describe() + ".")
				+ harness.commandAndMachine(database) + "\n\n"
				+ harness.table(Map.of("ratio to hand-ideal", (variant) -> "hand-ideal"));
		HarnessReport.publish("streams-" + database.id(), report);
	}

}
