package dev.idempotency.benchmarks.outbox;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.support.Machine;
import dev.idempotency.benchmarks.support.Options;

/**
 * Issue 5: the transactional outbox relay on PostgreSQL to an in-process Kafka broker (one KRaft
 * broker, topics with 2 partitions, see {@link OutboxEnvironment}).
 * <p>
 * <b>Throughput</b> ({@link OutboxThroughput}): relaying applications against plain
 * {@code KafkaTemplate} sends, rows per second. <b>Latency</b> ({@link OutboxLatency}): from commit
 * to the broker's acknowledgement, through the relay and with a direct send after commit.
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.outbox.OutboxBench [--rows 5000] [--rounds 3]
 * [--warmup 1] [--poll-interval 20ms] [--latency-poll-intervals 500ms,50ms] [--rate 200] [--seconds 10]};
 * normally through {@code scripts/bench.sh --suite outbox}. This class reads the options, runs both
 * parts and writes the report.
 */
public final class OutboxBench {

	private OutboxBench() {
	}

	public static void main(String[] args) throws Exception {
		Options options = Options.parse(args);
		int rows = options.integer("rows", 5000);
		int rounds = options.integer("rounds", 3);
		int warmup = options.integer("warmup", 1);
		String pollInterval = options.text("poll-interval", "20ms");
		List<String> latencyPolls = options.list("latency-poll-intervals", "500ms,50ms");
		int rate = options.integer("rate", 200);
		int seconds = options.integer("seconds", 10);
		List<String> variants = options.list("variants", "relay-1,relay-2,kafka-batch,kafka-sync");
		String loadAtStart = Machine.loadAverage();
		Instant started = Instant.now();
		List<String> lines = new ArrayList<>();
		StringBuilder tables = new StringBuilder();
		try (OutboxEnvironment environment = new OutboxEnvironment()) {
			if (rounds > 0) {
				tables.append(new OutboxThroughput(environment, rows, pollInterval).run(variants, warmup, rounds, lines));
			}
			if (seconds > 0 && !latencyPolls.isEmpty()) {
				tables.append(new OutboxLatency(environment, rate, seconds).run(latencyPolls, lines));
			}
		}
		StringBuilder report = new StringBuilder();
		report.append(HarnessReport.finished(started)).append(".\n\n")
			.append(HarnessReport.commandAndMachine("OutboxBench " + String.join(" ", args), loadAtStart))
			.append("; Kafka: in-process EmbeddedKafkaKraftBroker, 1 broker")
			.append("\n\n").append(tables).append("\nRounds:\n\n");
		lines.forEach((line) -> report.append("- ").append(line).append('\n'));
		HarnessReport.publish("outbox", report.toString());
		System.exit(0);
	}

}
