package dev.idempotency.benchmarks.outbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.benchmarks.support.Machine;
import dev.idempotency.benchmarks.support.Stats;
import dev.idempotency.benchmarks.support.Waits;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Commit-to-acknowledgement latency. For each poll interval, a fresh application runs business
 * transactions (the account UPDATE and ledger INSERT of the other benchmarks plus
 * {@code Outbox.publish}) at {@code --rate} per second for {@code --seconds}. The latency of a
 * message is from {@code System.nanoTime()} taken right after its transaction committed to the
 * completion of the Kafka producer's send future for it in the relay (the broker's acknowledgement,
 * {@code acks=all}), recorded by a {@link TimingKafkaOutboxSender} into the application's
 * {@link AckTimes}. Baseline: the same transaction without the outbox and a
 * {@code KafkaTemplate.send} right after commit, timed the same way.
 */
final class OutboxLatency {

	private final OutboxEnvironment environment;

	private final int rate;

	private final int seconds;

	private final int threads;

	OutboxLatency(OutboxEnvironment environment, int rate, int seconds, int threads) {
		this.environment = environment;
		this.rate = rate;
		this.seconds = seconds;
		this.threads = threads;
	}

	/** Measures both paths at each poll interval, adds a line per measurement, returns the Markdown table. */
	String run(List<String> pollIntervals, List<String> lines) {
		StringBuilder out = new StringBuilder();
		out.append("Latency: business transactions at ").append(this.rate).append("/s for ").append(this.seconds)
			.append(" s per row from ").append(this.threads).append(" publishing thread(s)")
			.append(", one relay; from right after commit to the broker's acknowledgement (ms).\n\n");
		out.append("| variant | poll interval | messages | published/s | p50 ms | p90 ms | p99 ms | max ms "
				+ "| correctness |\n");
		out.append("|---|---|---|---|---|---|---|---|---|\n");
		for (String pollInterval : pollIntervals) {
			RelayApp app = new RelayApp("latency-" + pollInterval, pollInterval, this.environment.brokers(),
					this.environment.database());
			try {
				app.relay().start();
				// A short warm-up of both paths, not counted.
				measure(app, true, 2, null);
				measure(app, false, 2, null);
				out.append(measure(app, true, this.seconds, lines).row("relay", pollInterval));
				out.append(measure(app, false, this.seconds, lines).row("direct send after commit", "—"));
			}
			finally {
				app.close();
			}
		}
		out.append('\n');
		return out.toString();
	}

	private Latency measure(RelayApp app, boolean outbox, int duration, List<String> lines) {
		this.environment.truncateOutbox();
		String topic = this.environment.newTopic(app);
		int count = this.rate * duration;
		Map<String, Long> committed = new ConcurrentHashMap<>();
		Map<String, Long> direct = new ConcurrentHashMap<>();
		String[] ids = new String[count];
		JdbcTemplate jdbc = app.jdbc();
		KafkaTemplate<String, String> kafka = app.kafka();
		long sentBefore = app.sent().get();
		long start = System.nanoTime();
		long interval = 1_000_000_000L / this.rate;
		// Message i is due at start + i * interval; thread t publishes the messages i with i % threads == t.
		List<Thread> publishers = new ArrayList<>();
		for (int t = 0; t < this.threads; t++) {
			int first = t;
			Thread publisher = new Thread(() -> {
				for (int i = first; i < count; i += this.threads) {
					long due = start + i * interval;
					long wait = due - System.nanoTime();
					if (wait > 0) {
						Waits.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
					}
					ids[i] = publish(app, jdbc, kafka, topic, outbox, i, committed, direct);
				}
			}, "latency-publisher-" + t);
			publishers.add(publisher);
			publisher.start();
		}
		for (Thread publisher : publishers) {
			try {
				publisher.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		double achieved = count / ((System.nanoTime() - start) / 1e9);
		List<String> idList = List.of(ids);
		Map<String, Long> acked = outbox ? app.ackTimes().byMessageId() : direct;
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (System.nanoTime() < deadline
				&& (outbox ? app.sent().get() - sentBefore < count : direct.size() < count)) {
			Waits.sleep(5);
		}
		// The relay counts a row when it is marked sent; the timing callback may finish a moment later.
		Waits.sleep(100);
		long[] latencies = new long[count];
		int measured = 0;
		for (String id : idList) {
			Long commit = committed.get(id);
			Long ack = acked.get(id);
			if (commit != null && ack != null) {
				latencies[measured++] = ack - commit;
			}
		}
		String verdict = TopicCheck.verify(this.environment.brokers(), topic, idList);
		if (outbox) {
			long unsent = this.environment.unsentRows();
			if (unsent != 0) {
				verdict = "WRONG — " + unsent + " rows not sent; " + verdict;
			}
		}
		if (measured != count) {
			verdict = "WRONG — " + (count - measured) + " messages without a latency; " + verdict;
		}
		app.ackTimes().forget(idList);
		Latency result = new Latency(measured, achieved, Stats.percentile(latencies, measured, 50) / 1e6,
				Stats.percentile(latencies, measured, 90) / 1e6, Stats.percentile(latencies, measured, 99) / 1e6,
				Stats.percentile(latencies, measured, 100) / 1e6, verdict);
		if (lines != null) {
			String line = String.format(
					"latency %s (poll %s): %,.0f published/s, p50 %.1f ms, p99 %.1f ms, load %s — %s",
					outbox ? "relay" : "direct", app.pollInterval(), achieved, result.p50(), result.p99(),
					Machine.loadAverage(), verdict);
			System.out.println(line);
			lines.add(line);
		}
		return result;
	}

	private String publish(RelayApp app, JdbcTemplate jdbc, KafkaTemplate<String, String> kafka, String topic,
			boolean outbox, int n, Map<String, Long> committed, Map<String, Long> direct) {
		String id = app.transactions().execute((status) -> {
			int account = Math.floorMod(n * 7919, OutboxEnvironment.ACCOUNTS);
			jdbc.update("UPDATE bench_outbox_account SET balance = balance + ? WHERE id = ?", 1 + n % 97, account);
			jdbc.update("INSERT INTO bench_outbox_ledger (msg_key, account_id, amount) VALUES (?, ?, ?)",
					OutboxRecords.key(n), account, 1 + n % 97);
			if (outbox) {
				return app.outbox().publish("kafka:" + topic, OutboxRecords.key(n), OutboxRecords.payload(n));
			}
			String messageId = UUID.randomUUID().toString();
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					long commit = System.nanoTime();
					committed.put(messageId, commit);
					kafka.send(OutboxRecords.record(topic, OutboxRecords.key(n), OutboxRecords.payload(n), messageId))
						.whenComplete((result, ex) -> {
							if (ex == null) {
								direct.put(messageId, System.nanoTime());
							}
						});
				}
			});
			return messageId;
		});
		if (outbox) {
			committed.put(id, System.nanoTime());
		}
		return id;
	}

	private record Latency(int count, double published, double p50, double p90, double p99, double max,
			String verdict) {

		String row(String variant, String pollInterval) {
			return "| " + variant + " | " + pollInterval + " | " + this.count + " | "
					+ String.format("%,.0f", this.published) + " | " + String.format("%.1f", this.p50)
					+ " | " + String.format("%.1f", this.p90) + " | " + String.format("%.1f", this.p99) + " | "
					+ String.format("%.1f", this.max) + " | " + (this.verdict.startsWith("OK") ? "OK" : "**WRONG**")
					+ " |\n";
		}

	}

}
