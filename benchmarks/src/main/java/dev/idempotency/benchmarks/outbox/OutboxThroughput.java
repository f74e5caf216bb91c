package dev.idempotency.benchmarks.outbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.support.Machine;
import dev.idempotency.benchmarks.support.Stats;
import dev.idempotency.benchmarks.support.Waits;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

import org.springframework.core.Ordered;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Outbox relay throughput. Two Spring Boot applications (everything auto-configured, outbox enabled,
 * the relay polling every {@code --poll-interval}, the default batch size) share the outbox table. Each round
 * empties the table, adds {@code --sent-rows} rows already sent and refreshes the statistics (the
 * steady state before a backlog, see {@link OutboxTables#insertSent}), writes {@code --rows} rows in
 * one transaction (none of this timed), and the clock runs from that commit until the relays have
 * marked the last row sent (counted by a {@link SentCounter} in each application).
 * {@code relay-1} runs one relay, {@code relay-2} both. Baselines in the same run, with the same
 * payloads, key and {@code message-id} header, on the same {@code KafkaTemplate} settings:
 * {@code kafka-batch} sends 100 records and waits for their acknowledgements, then the next 100 (the
 * relay without the database); {@code kafka-sync} is a {@code send(...).get()} loop over a tenth of
 * the rows. Peer: {@code modulith}, Spring Modulith's JDBC event publication registry externalizing the
 * same records to Kafka ({@link ModulithApp}), each row an event published in one transaction, timed
 * from its commit until every publication is completed; its table is emptied before each round (the
 * rows already sent of {@code --sent-rows} are the outbox table's). Variants are interleaved round by
 * round; the first {@code --warmup} rounds are not counted.
 * After every round the topic is read from the start: every message id published in the round must be
 * there exactly once, no outbox row may be left unsent, and the rows already sent must be untouched.
 */
final class OutboxThroughput {

	private final OutboxEnvironment environment;

	private final int rows;

	private final int sentRows;

	private final String pollInterval;

	private int relayBatch;

	OutboxThroughput(OutboxEnvironment environment, int rows, int sentRows, String pollInterval) {
		this.environment = environment;
		this.rows = rows;
		this.sentRows = sentRows;
		this.pollInterval = pollInterval;
	}

	/** Runs the rounds, adds the measured rounds' lines to {@code lines}, returns the Markdown table. */
	String run(List<String> variants, int warmup, int rounds, List<String> lines) {
		RelayApp first = new RelayApp("a", this.pollInterval, this.environment.brokers(), this.environment.database());
		RelayApp second = new RelayApp("b", this.pollInterval, this.environment.brokers(), this.environment.database());
		this.relayBatch = first.batchSize();
		ModulithApp modulith = variants.contains("modulith")
				? new ModulithApp(this.environment.brokers(), this.environment.database()) : null;
		Map<String, List<Double>> rates = new LinkedHashMap<>();
		Map<String, Integer> wrong = new LinkedHashMap<>();
		variants.forEach((variant) -> {
			rates.put(variant, new ArrayList<>());
			wrong.put(variant, 0);
		});
		try {
			for (int round = 0; round < warmup + rounds; round++) {
				for (int i = 0; i < variants.size(); i++) {
					String variant = variants.get((i + round) % variants.size());
					boolean measured = round >= warmup;
					Result result = switch (variant) {
						case "relay-1" -> relayRound(first, null);
						case "relay-2" -> relayRound(first, second);
						case "kafka-batch" -> kafkaRound(first, this.rows, RelayApp.BATCH);
						case "kafka-sync" -> kafkaRound(first, Math.max(1, this.rows / 10), 1);
						case "modulith" -> modulithRound(modulith);
						default -> throw new IllegalArgumentException("Unknown variant '" + variant
								+ "'; use relay-1, relay-2, kafka-batch, kafka-sync, modulith");
					};
					String line = String.format("%s round %d%s: %,.0f rows/s (%d rows in %.2f s), load %s — %s", variant,
							round, measured ? "" : " (warm-up)", result.rate(), result.count(), result.seconds(),
							Machine.loadAverage(), result.verdict());
					System.out.println(line);
					if (measured) {
						lines.add(line);
						rates.get(variant).add(result.rate());
						if (!result.verdict().startsWith("OK")) {
							wrong.merge(variant, 1, Integer::sum);
						}
					}
				}
			}
		}
		finally {
			first.close();
			second.close();
			if (modulith != null) {
				modulith.close();
			}
		}
		return table(rates, wrong, warmup, rounds);
	}

	private String table(Map<String, List<Double>> rates, Map<String, Integer> wrong, int warmup, int rounds) {
		double baseline = rates.containsKey("kafka-batch") ? Stats.median(rates.get("kafka-batch")) : Double.NaN;
		StringBuilder out = new StringBuilder();
		out.append("Throughput on ").append(this.environment.database().productName()).append(": ").append(this.rows)
			.append(" rows per round (kafka-sync: ").append(Math.max(1, this.rows / 10)).append("), published after ")
			.append(String.format("%,d", this.sentRows)).append(" rows already sent (--sent-rows), ").append(warmup)
			.append(" warm-up + ").append(rounds)
			.append(" measured rounds per row, relay batch size ").append(this.relayBatch).append(" (kafka-batch: ")
			.append(RelayApp.BATCH).append("), poll interval ")
			.append(this.pollInterval).append(".\n\n");
		out.append("| variant | rows/s (median) | rounds min–max | ratio to kafka-batch | correctness |\n");
		out.append("|---|---|---|---|---|\n");
		rates.forEach((variant, values) -> out.append("| ").append(variant).append(" | ")
			.append(HarnessReport.fmt(Stats.median(values))).append(" | ").append(HarnessReport.range(values))
			.append(" | ").append(String.format("%.2f", Stats.median(values) / baseline)).append(" | ")
			.append(wrong.get(variant) == 0 ? "OK" : "**WRONG** (" + wrong.get(variant) + " rounds)").append(" |\n"));
		out.append('\n');
		return out.toString();
	}

	private Result relayRound(RelayApp first, RelayApp second) {
		first.relay().start();
		if (second != null) {
			second.relay().start();
		}
		this.environment.truncateOutbox();
		this.environment.insertSentRows(this.sentRows);
		String topic = this.environment.newTopic(first, second);
		long sentBefore = sent(first, second);
		// One transaction: every row becomes visible to the relays at the same commit.
		first.transactions().executeWithoutResult((status) -> {
			for (int i = 0; i < this.rows; i++) {
				first.outbox().publish("kafka:" + topic, OutboxRecords.key(i), OutboxRecords.payload(i));
			}
		});
		long start = System.nanoTime();
		long deadline = start + Duration.ofMinutes(2).toNanos();
		while (sent(first, second) - sentBefore < this.rows && System.nanoTime() < deadline) {
			Waits.sleep(2);
		}
		long elapsed = System.nanoTime() - start;
		if (second != null) {
			second.relay().stop();
		}
		long unsent = this.environment.unsentRows();
		List<String> ids = this.environment.publishedMessageIds();
		long sentKept = this.environment.sentRowsKept();
		String verdict = TopicCheck.verify(this.environment.brokers(), topic, ids);
		if (unsent != 0 || ids.size() != this.rows || sentKept != this.sentRows) {
			verdict = "WRONG — " + unsent + " rows not sent, " + ids.size() + " published rows of " + this.rows + ", "
					+ sentKept + " rows already sent of " + this.sentRows + "; " + verdict;
		}
		return new Result(this.rows / (elapsed / 1e9), elapsed / 1e9, this.rows, verdict);
	}

	/**
	 * Spring Modulith's peer: the round's rows published as events in one transaction, the clock from
	 * its commit until every publication is completed (sent and acknowledged), polled in the table.
	 * The ids checked on the topic are the payloads' order ids.
	 */
	private Result modulithRound(ModulithApp app) {
		this.environment.truncateModulith();
		String topic = this.environment.newTopic(List.of(app.kafka()));
		long[] start = new long[1];
		List<String> ids = new ArrayList<>(this.rows);
		app.transactions().executeWithoutResult((status) -> {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public int getOrder() {
					return Ordered.HIGHEST_PRECEDENCE;
				}

				@Override
				public void afterCommit() {
					start[0] = System.nanoTime();
				}

			});
			for (int i = 0; i < this.rows; i++) {
				ids.add("order-" + i);
				app.events()
					.publishEvent(new ModulithApplication.OrderPublished(topic, OutboxRecords.key(i),
							OutboxRecords.payload(i)));
			}
		});
		long deadline = start[0] + Duration.ofMinutes(2).toNanos();
		long[] publications = this.environment.modulithPublications();
		while (publications[1] < this.rows && System.nanoTime() < deadline) {
			Waits.sleep(10);
			publications = this.environment.modulithPublications();
		}
		long elapsed = System.nanoTime() - start[0];
		String verdict = TopicCheck.verify(this.environment.brokers(), topic, ids, ThroughputIds::orderId);
		if (publications[0] != this.rows || publications[1] != this.rows) {
			verdict = "WRONG — " + publications[0] + " publications, " + publications[1] + " completed, of "
					+ this.rows + "; " + verdict;
		}
		return new Result(this.rows / (elapsed / 1e9), elapsed / 1e9, this.rows, verdict);
	}

	/** Reads the order id ({@code order-<n>}) out of a payload of {@link OutboxRecords#payload(int)}. */
	private static final class ThroughputIds {

		private static String orderId(ConsumerRecord<String, String> record) {
			String value = record.value();
			int from = (value != null) ? value.indexOf("\"orderId\":\"") : -1;
			if (from < 0) {
				return "<none>";
			}
			from += "\"orderId\":\"".length();
			return value.substring(from, value.indexOf('"', from));
		}

	}

	private static long sent(RelayApp first, RelayApp second) {
		return first.sent().get() + ((second != null) ? second.sent().get() : 0);
	}

	private Result kafkaRound(RelayApp app, int count, int batch) {
		KafkaTemplate<String, String> kafka = app.kafka();
		String topic = this.environment.newTopic(app);
		List<String> ids = new ArrayList<>(count);
		List<ProducerRecord<String, String>> records = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			String id = UUID.randomUUID().toString();
			ids.add(id);
			records.add(OutboxRecords.record(topic, OutboxRecords.key(i), OutboxRecords.payload(i), id));
		}
		long start = System.nanoTime();
		List<CompletableFuture<?>> inFlight = new ArrayList<>(batch);
		for (ProducerRecord<String, String> record : records) {
			inFlight.add(kafka.send(record));
			if (inFlight.size() >= batch) {
				inFlight.forEach(CompletableFuture::join);
				inFlight.clear();
			}
		}
		inFlight.forEach(CompletableFuture::join);
		long elapsed = System.nanoTime() - start;
		return new Result(count / (elapsed / 1e9), elapsed / 1e9, count,
				TopicCheck.verify(this.environment.brokers(), topic, ids));
	}

	private record Result(double rate, double seconds, int count, String verdict) {
	}

}
