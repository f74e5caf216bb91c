package dev.idempotency.benchmarks.outbox;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Machine;
import dev.idempotency.benchmarks.support.Options;

/**
 * Issue 5: the transactional outbox relay on PostgreSQL or MariaDB ({@code --db}) to an in-process
 * Kafka broker (one KRaft broker, topics with 2 partitions, see {@link OutboxEnvironment}).
 * <p>
 * <b>Throughput</b> ({@link OutboxThroughput}): relaying applications against plain
 * {@code KafkaTemplate} sends, rows per second. <b>Latency</b> ({@link OutboxLatency}): from commit
 * to the broker's acknowledgement, through the relay and with a direct send after commit.
 * {@code --sent-rows N} starts every throughput round with N rows already sent and fresh statistics,
 * as an outbox looks before a backlog arrives (rows are kept a day before the purge); the latency
 * part starts from an empty table whatever it says.
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.outbox.OutboxBench [--db postgresql|mariadb]
 * [--rows 5000] [--sent-rows 0] [--rounds 3] [--warmup 1] [--poll-interval 20ms]
 * [--latency-poll-intervals 500ms,50ms] [--rate 200] [--seconds 10] [--latency-threads 1]};
 * normally through {@code scripts/bench.sh --suite outbox}. This class reads the options, runs both
 * parts and writes the report ({@code benchmarks/target/bench-results/outbox-<db>-<timestamp>.md}).
 */
public final class OutboxBench {

	private OutboxBench() {
	}

	public static void main(String[] args) throws Exception {
		Options options = Options.parse(args);
		Database database = Database.of(options.text("db", "postgresql"));
		int rows = options.integer("rows", 5000);
		int sentRows = options.integer("sent-rows", 0);
		int rounds = options.integer("rounds", 3);
		int warmup = options.integer("warmup", 1);
		String pollInterval = options.text("poll-interval", "20ms");
		List<String> latencyPolls = options.list("latency-poll-intervals", "500ms,50ms");
		int rate = options.integer("rate", 200);
		int seconds = options.integer("seconds", 10);
		int latencyThreads = options.integer("latency-threads", 1);
		List<String> variants = options.list("variants", "relay-1,relay-2,kafka-batch,kafka-sync");
		String loadAtStart = Machine.loadAverage();
		Instant started = Instant.now();
		List<String> lines = new ArrayList<>();
		StringBuilder tables = new StringBuilder();
		try (OutboxEnvironment environment = new OutboxEnvironment(database)) {
			if (rounds > 0) {
				tables.append(new OutboxThroughput(environment, rows, sentRows, pollInterval)
					.run(variants, warmup, rounds, lines));
			}
			if (seconds > 0 && !latencyPolls.isEmpty()) {
				tables.append(new OutboxLatency(environment, rate, seconds, latencyThreads).run(latencyPolls, lines));
			}
		}
		StringBuilder report = new StringBuilder();
		report.append(HarnessReport.finished(started)).append(" on ").append(database.productName())
			.append(String.format(", throughput rounds after %,d rows already sent (--sent-rows)", sentRows))
			.append(", the relays on Spring Boot's default pool and the database's default isolation.\n\n")
			.append(HarnessReport.commandAndMachine("OutboxBench " + String.join(" ", args), loadAtStart, database))
			.append("; Kafka: in-process EmbeddedKafkaKraftBroker, 1 broker")
			.append("\n\n").append(tables).append("\nRounds:\n\n");
		lines.forEach((line) -> report.append("- ").append(line).append('\n'));
		HarnessReport.publish("outbox-" + database.id(), report.toString());
		System.exit(0);
	}

}
