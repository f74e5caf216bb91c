package dev.idempotency.fault;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 3: a consumer JVM is SIGKILLed after the database commit and before the offset commit, and
 * restarted. Each order is credited exactly once; the redelivered record is a duplicate, which the
 * restarted consumer acknowledges (the committed offset reaches the end of the partition) and counts
 * as {@code duplicate}, both in its journal and in its {@code idempotency.invocations} timer.
 * <p>
 * Run for both ways the offset gets committed: by the container after the method returned
 * ({@code AckMode.RECORD}) and by the interceptor's acknowledgement after commit
 * ({@code MANUAL_IMMEDIATE}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaConsumerCrashIntegrationTests {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private static final int ORDERS = 10;

	private static final int KILL_AT = 5;

	private FaultCluster cluster;

	private final Set<String> groups = new HashSet<>();

	@BeforeAll
	void start() {
		this.cluster = new FaultCluster("crash");
	}

	@AfterAll
	void stop() {
		if (this.cluster != null) {
			try {
				this.cluster.database().deleteRunData(this.groups);
			}
			finally {
				this.cluster.close();
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "record", "manual_immediate" })
	void consumerKilledAfterTheDatabaseCommitAndBeforeTheOffsetCommitCreditsEachOrderOnce(String ackMode) {
		String topic = "crash-" + ackMode.replace('_', '-') + "-" + this.cluster.runId();
		String group = topic + "-points";
		this.groups.add(group);
		this.cluster.createTopic(topic, 1);
		String o = ackMode.substring(0, 3) + "-";
		List<ProducerRecord<String, byte[]>> orders = new ArrayList<>();
		for (int i = 1; i <= ORDERS; i++) {
			orders.add(new ProducerRecord<>(topic, 0, o + i, FaultCluster.json(o + i, "u-" + (i % 3), i)));
		}
		this.cluster.sendAndFlush(orders);

		// 1. The first consumer processes o-1..o-4, commits o-5 in the database and stops before
		// its offset is committed.
		String first = topic + "-1";
		Map<String, String> properties = this.cluster.consumerProperties(topic, group, first);
		properties.put("fault.kill-point", "after-commit");
		properties.put("fault.kill-at", String.valueOf(KILL_AT));
		ChildConsumer consumer = ChildConsumer.start(first, this.cluster.directory(), ackMode, properties);
		String point = consumer.awaitLine(0, (line) -> line.startsWith("POINT after-commit"), START_TIMEOUT);
		assertThat(point).as("%s stopped at the after-commit point", consumer).isNotNull();
		assertThat(point).contains("key=" + o + 5, "partition=0", "offset=4");
		assertThat(this.cluster.database().creditedBy(o + 5)).as("o-5 is committed in the database").containsExactly(first);
		assertThat(this.cluster.committedOffsets(group))
			.as("the offset of o-5 (4) is not committed: the group resumes at o-5")
			.containsEntry(0, 4L);

		// 2. SIGKILL.
		assertThat(consumer.kill()).as("exit status of a SIGKILLed JVM").isEqualTo(ChildConsumer.SIGKILL_EXIT);
		assertThat(this.cluster.committedOffsets(group)).containsEntry(0, 4L);

		// 3. Restart: o-5 comes back and is a duplicate; o-6..o-10 are processed.
		String second = topic + "-2";
		ChildConsumer restarted = ChildConsumer.start(second, this.cluster.directory(), ackMode,
				this.cluster.consumerProperties(topic, group, second));
		await().atMost(START_TIMEOUT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> this.cluster.database().distinctOrdersCredited(o) >= ORDERS && this.cluster.caughtUp(group, topic, 1));
		assertThat(restarted.stop()).as("clean shutdown").isEqualTo(ChildConsumer.SIGTERM_EXIT);

		// Each order exactly once, o-5 by the killed consumer.
		Map<String, Integer> credits = this.cluster.database().creditsPerOrder(o);
		assertThat(credits).hasSize(ORDERS).allSatisfy((order, count) -> assertThat(count).as(order).isEqualTo(1));
		assertThat(this.cluster.database().creditedBy(o + 5)).containsExactly(first);
		assertThat(this.cluster.committedOffsets(group)).containsEntry(0, (long) ORDERS);

		// The killed consumer: o-1..o-4 processed, o-5 received and in flight (no outcome).
		Journal killed = Journal.read(first, consumer.journal());
		assertThat(killed.received).extracting(Journal.Received::orderId)
			.containsExactly(o + 1, o + 2, o + 3, o + 4, o + 5);
		assertThat(killed.outcomes).extracting(Journal.Outcome::outcome).containsOnly("processed").hasSize(4);
		assertThat(killed.inFlight()).isEqualTo(1);
		assertThat(killed.cleanShutdown).isFalse();

		// The restarted consumer: o-5 a duplicate (acknowledged: the offset reached the end), the rest
		// processed; its Micrometer timer agrees with its journal.
		Journal after = Journal.read(second, restarted.journal());
		assertThat(after.received).extracting(Journal.Received::orderId)
			.containsExactly(o + 5, o + 6, o + 7, o + 8, o + 9, o + 10);
		assertThat(after.outcomes).extracting((outcome) -> outcome.outcome() + " " + outcome.key())
			.containsExactly("duplicate " + o + 5, "processed " + o + 6, "processed " + o + 7, "processed " + o + 8,
					"processed " + o + 9, "processed " + o + 10);
		assertThat(after.cleanShutdown).isTrue();
		String metrics = restarted.findLine(0, (line) -> line.startsWith("METRICS"));
		assertThat(metrics).as("the restarted consumer's idempotency.invocations timer")
			.contains("processed=5", "duplicate=1", "failed=0", "rejected=0", "in_progress=0");

		// Accounting: received = processed + duplicate + failed + rejected + in flight at the kill.
		long received = killed.received.size() + after.received.size();
		long accounted = killed.outcomes.size() + after.outcomes.size() + killed.inFlight() + after.inFlight();
		assertThat(received).isEqualTo(accounted).isEqualTo(11);
		System.out.printf("[crash %s] killed %s at %s (exit %d); restarted %s: %s; ledger: %d orders, once each%n",
				ackMode, first, point, consumer.exitStatus(), second, metrics, credits.size());
	}

	/**
	 * A dead-lettered record's offset is committed once its dead letter is published (the error
	 * handler waits for the broker, then commits), even when no record follows it, in both ack
	 * modes, with the starter's own error handler. In {@code MANUAL_IMMEDIATE} this needs
	 * {@code DefaultErrorHandler.setCommitRecovered(true)}: before the starter set it, the offset
	 * stayed uncommitted until a later record was acknowledged, and a crash dead-lettered the record
	 * a second time (found by this suite).
	 */
	@ParameterizedTest
	@ValueSource(strings = { "record", "manual_immediate" })
	void offsetOfADeadLetteredLastRecordIsCommitted(String ackMode) {
		deadLetterLastRecord(ackMode);
	}

	private void deadLetterLastRecord(String ackMode) {
		String topic = "dlt-" + ackMode.replace('_', '-') + "-" + this.cluster.runId();
		String group = topic + "-points";
		this.groups.add(group);
		this.cluster.createTopic(topic, 1);
		String o = topic + "-o";
		this.cluster.sendAndFlush(List.of(new ProducerRecord<>(topic, 0, o + 1, FaultCluster.json(o + 1, "u-1", 1)),
				new ProducerRecord<>(topic, 0, o + 2, FaultCluster.json(o + 2, "u-1", 1)),
				new ProducerRecord<>(topic, 0, "poison", "{not json".getBytes(StandardCharsets.UTF_8))));
		String name = topic + "-1";
		Map<String, String> properties = this.cluster.consumerProperties(topic, group, name);
		ChildConsumer consumer = ChildConsumer.start(name, this.cluster.directory(), ackMode, properties);
		try {
			await().atMost(START_TIMEOUT)
				.pollInterval(Duration.ofMillis(200))
				.until(() -> Journal.read(name, consumer.journal()).deadLetters.size() == 1);
			await().atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(200))
				.untilAsserted(() -> assertThat(this.cluster.committedOffsets(group))
					.as("committed offset after the dead-lettered last record (%s)", ackMode)
					.containsEntry(0, 3L));
			assertThat(this.cluster.database().creditsPerOrder(o)).containsOnlyKeys(o + 1, o + 2);
		}
		finally {
			consumer.stop();
		}
	}

	static {
		// Keep Awaitility's default poll delay small: most waits here are for a line or a row.
		org.awaitility.Awaitility.setDefaultPollDelay(0, TimeUnit.MILLISECONDS);
	}

}
