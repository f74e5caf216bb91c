package dev.idempotency.benchmarks.rabbit;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Harness;

/**
 * RabbitMQ listener messages per second, end to end, on PostgreSQL (or MariaDB, {@code --db}) and the
 * local RabbitMQ ({@code -Dbench.rabbitmq.host/port}, default 127.0.0.1:5672, guest/guest): the
 * starter's {@code @Idempotent @RabbitListener} against a hand-written {@code MANUAL}-ack listener
 * ({@link HandRabbitListener}) that inserts the message id with insert-or-ignore and applies the
 * business writes in one JDBC transaction, and acknowledges after the commit.
 * <p>
 * Every variant is a Spring Boot application ({@link RabbitListenerApp}) with Spring Boot's RabbitMQ
 * container factory (simple container, prefetch 250), Spring Boot's default connection pool and the
 * database's default isolation: what an application that tunes nothing gets. Each has one listener on
 * its own durable queue; messages are persistent. Each round ({@link RabbitRounds}): the tables are
 * reset, the queue is filled with {@code --messages} messages (every tenth re-sends the message five
 * positions earlier with the same message id, ~10% duplicates), then the clock starts, the container
 * starts, and the clock stops once every distinct message had its effect and no message is left to
 * deliver (polled every 10 ms). The container is then stopped and the end state checked (one ledger
 * row per distinct id, no key applied twice, all balances, nothing left unacknowledged). Variants are
 * interleaved round by round; the first {@code --warmup} rounds are not counted.
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.rabbit.RabbitBench [--db postgresql|mariadb]
 * [--messages 10000] [--rounds 5] [--warmup 2] [--concurrency 1,4] [--variants hand,starter]};
 * normally through {@code scripts/bench.sh --suite rabbit}. Writes
 * {@code benchmarks/target/bench-results/rabbit-<db>-<timestamp>.md}.
 */
public final class RabbitBench {

	private RabbitBench() {
	}

	public static void main(String[] args) throws Exception {
		Harness harness = Harness.start("RabbitBench", args, 10000, 5, 2, "hand,starter");
		Database database = harness.database();
		try (RabbitRounds bench = new RabbitRounds(harness.messages(), database)) {
			harness.measureAll((name, concurrency) -> new DeletingApp(bench, bench.create(name, concurrency)),
					(app) -> app.app().name(), (app, round) -> bench.run(app.app(), round));
		}
		String report = harness.summary(database, "messages", "one durable queue per variant, persistent messages,"
				+ " Spring Boot's simple container (prefetch 250), Spring Boot's default pool, the database's default"
				+ " isolation.")
				+ harness.commandAndMachine(database) + "; RabbitMQ: " + RabbitRounds.HOST + ":" + RabbitRounds.PORT
				+ "\n\n" + harness.table(ratios());
		HarnessReport.publish("rabbit-" + database.id(), report);
	}

	private static Map<String, Function<String, String>> ratios() {
		Map<String, Function<String, String>> ratios = new LinkedHashMap<>();
		ratios.put("ratio to hand", (variant) -> "hand");
		return ratios;
	}

	/** A variant whose queue is deleted when it is closed. */
	private record DeletingApp(RabbitRounds bench, RabbitListenerApp app) implements AutoCloseable {

		@Override
		public void close() {
			try {
				this.app.close();
			}
			finally {
				this.bench.deleteQueue(this.app);
			}
		}

	}

}
