package dev.idempotency.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.idempotency.testsupport.TcpProxy;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fail-closed for Kafka (issue 14): the child consumers reach PostgreSQL (the JDBC store and the
 * ledger) through a {@link TcpProxy} in this JVM, which the suite cuts for 30 s after a third of the
 * orders while the rest flows. Then, for record listeners (both ack modes), for batch listeners,
 * and with a consumer SIGKILLed and another leaving during the outage:
 * <ul>
 * <li>every order is credited exactly once, none is missing;</li>
 * <li>the dead-letter topic holds only the poison sent during the outage: no valid order;</li>
 * <li>the poison was dead-lettered after its configured attempts (5 {@code failed} outcomes of the
 * business exception), and the orders after it were credited;</li>
 * <li>nothing is lost: the committed offsets reach the end of every partition;</li>
 * <li>consumption resumed within 10 s of the restore (the first ledger row after it);</li>
 * <li>the pause shows in the journals ({@code P} lines) and in the meters
 * ({@code idempotency.listener.pauses} at least 1 in a cleanly stopped consumer's METRICS line);</li>
 * <li>the accounting closes (see {@link Accounting}).</li>
 * </ul>
 * Short mode: 1,000 orders per scenario (about 10 % sent twice); {@code -Dfault.soak=true}: 3,000.
 * {@code fault.messages}, {@code fault.outage-seconds} and {@code fault.seed} set each. See
 * {@code docs/reliability.md}, "Outages: fail-closed".
 * <p>
 * The three scenarios run at the same time (see the module's Failsafe configuration): they share the
 * broker and its producer and nothing else (topic, group, rows, children and the PostgreSQL proxy each
 * cuts are their own), and each spends most of its time waiting through its outage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaOutageIntegrationTests {

	private static final int PARTITIONS = 4;

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);

	/** The starter's error handler's attempts in the child ({@code idempotency.kafka.retry.max-attempts}). */
	private static final int ATTEMPTS = 5;

	private final boolean soak = Boolean.getBoolean("fault.soak");

	private final int orders = Integer.getInteger("fault.messages", this.soak ? 3_000 : 1_000);

	private final Duration outageLength = Duration.ofSeconds(Long.getLong("fault.outage-seconds", 30));

	private final long seed = Long.getLong("fault.seed", System.nanoTime());

	private FaultCluster cluster;

	private final Set<String> groups = ConcurrentHashMap.newKeySet();

	private final List<FaultDatabase> databases = new CopyOnWriteArrayList<>();

	@BeforeAll
	void start() {
		this.cluster = new FaultCluster("outage");
	}

	@AfterAll
	void stop() {
		ChildConsumer.destroyAll();
		try {
			for (FaultDatabase database : this.databases) {
				database.deleteRunData(this.groups);
				database.close();
			}
		}
		finally {
			if (this.cluster != null) {
				this.cluster.close();
			}
		}
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void recordListenersPauseThroughADatabaseOutageAndOnlyThePoisonReachesTheDeadLetterTopic() {
		OutageRun run = run("record", List.of("manual_immediate", "record"), true, false);
		assertThat(run.failedAttempts("poison-negative-1", "IllegalArgumentException"))
			.as("the poison sent during the outage failed its configured attempts after the restore, then went to the DLT")
			.isEqualTo(ATTEMPTS);
		assertThat(run.count("rejected")).as("the keyless poison was rejected once").isEqualTo(1);
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void batchListenersPauseThroughADatabaseOutage() {
		run("batch", List.of("batch", "batch"), false, false);
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void aConsumerKilledAndAnotherLeavingDuringTheOutageLoseNothing() {
		run("kill", List.of("manual_immediate", "record", "record"), false, true);
	}

	/**
	 * One scenario: consumers (one per ack mode given) in a new group on a new topic; a third of the
	 * orders; the rest, and PostgreSQL cut; during the outage, poison (if asked), and consumer
	 * {@code a} SIGKILLed and {@code c} stopped (if asked; both are rebalances); restore; drain; check.
	 * The scenario's children reach PostgreSQL through a proxy of its own, which only it cuts.
	 */
	private OutageRun run(String name, List<String> ackModes, boolean poison, boolean killAndLeave) {
		try (TcpProxy postgres = FaultDatabase.proxy()) {
			return run(name, ackModes, poison, killAndLeave, postgres);
		}
	}

	private OutageRun run(String name, List<String> ackModes, boolean poison, boolean killAndLeave,
			TcpProxy postgres) {
		long started = System.nanoTime();
		String topic = "outage-" + name + "-" + this.cluster.runId();
		String group = topic + "-points";
		this.groups.add(group);
		this.cluster.createTopic(topic, PARTITIONS);
		FaultDatabase database = new FaultDatabase(this.cluster.runId() + "-" + name);
		this.databases.add(database);
		OrderBook book = new OrderBook(new Random(this.seed));
		OutageRun run = new OutageRun(name, database, this.cluster.directory().resolve("outage-" + name));
		run.note("seed %d, %d orders, ack modes %s, poison %s, kill and leave %s", this.seed, this.orders, ackModes,
				poison, killAndLeave);

		Map<String, ChildConsumer> slots = new LinkedHashMap<>();
		for (int i = 0; i < ackModes.size(); i++) {
			String slot = String.valueOf((char) ('a' + i));
			slots.put(slot, start(run, postgres, topic, group, name + "-" + slot + "1", ackModes.get(i)));
		}
		slots.values().forEach((child) -> child.awaitAssigned(READY_TIMEOUT));
		run.note("consumers assigned");

		List<OrderBook.Message> first = book.newOrders(this.orders / 3, 0.1);
		send(topic, first);
		await().atMost(Duration.ofMinutes(3))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> database.distinctOrdersCredited("ord-") >= book.uniqueOrders());
		List<OrderBook.Message> rest = book.newOrders(this.orders - book.uniqueOrders(), 0.1);
		send(topic, rest);
		Outage outage = new Outage("PostgreSQL", postgres, () -> database.creditsPerChild().values()
			.stream()
			.mapToLong(Integer::longValue)
			.sum());
		outage.cut();
		run.note("PostgreSQL cut after %d of %d orders credited", database.distinctOrdersCredited("ord-"),
				book.uniqueOrders());

		outage.lastUntil(Duration.ofSeconds(3));
		if (poison) {
			send(topic, List.of(new OrderBook.Message("poison-negative-1", OrderBook.json("poison-negative-1", "u-poison", -5)),
					new OrderBook.Message("poison-nokey-1", OrderBook.json(null, "u-poison", 10))));
			run.poison.addAll(List.of("poison-negative-1", "poison-nokey-1"));
			send(topic, book.newOrders(100, 0));
			run.note("poison sent during the outage, then 100 orders after it");
		}
		long assignedBefore = assignments(slots.get("b"));
		if (killAndLeave) {
			ChildConsumer a = slots.get("a");
			assertThat(a.kill()).as("exit status of SIGKILLed %s", a).isEqualTo(ChildConsumer.SIGKILL_EXIT);
			run.note("%s SIGKILLed %d ms into the outage", a.name(), outage.elapsed().toMillis());
			outage.lastUntil(Duration.ofSeconds(8));
			ChildConsumer c = slots.get("c");
			assertThat(c.stop()).as("%s stops cleanly while paused", c).isEqualTo(ChildConsumer.SIGTERM_EXIT);
			run.note("%s stopped (SIGTERM) %d ms into the outage", c.name(), outage.elapsed().toMillis());
			slots.remove("c");
		}
		outage.lastUntil(this.outageLength);
		long rebalancedWhileDown = assignments(slots.get("b")) - assignedBefore;
		run.note("%s got %d new assignments during the outage", slots.get("b").name(), rebalancedWhileDown);
		Duration resumed = outage.restoreAndAwaitProgress(Duration.ofSeconds(60));
		run.note(outage.describe(this.outageLength));
		if (killAndLeave) {
			slots.put("a", start(run, postgres, topic, group, name + "-a2", ackModes.get(0)));
			run.note("%s-a2 started after the restore", name);
		}

		await().atMost(this.soak ? Duration.ofMinutes(10) : Duration.ofMinutes(4))
			.pollInterval(Duration.ofMillis(500))
			.until(() -> {
				// Reading the DLT takes a new consumer: only once the offsets reached the end, which the
				// condition needs anyway.
				if (!this.cluster.caughtUp(group, topic, PARTITIONS)) {
					return false;
				}
				// A valid order on the DLT (what fail-closed prevents) will never be credited: stop then.
				Set<String> deadLettered = deadLetters(topic).keySet();
				long validDeadLettered = deadLettered.stream().filter((key) -> !run.poison.contains(key)).count();
				return database.distinctOrdersCredited("ord-") + validDeadLettered >= book.uniqueOrders()
						&& deadLettered.containsAll(run.poison);
			});
		for (ChildConsumer child : slots.values()) {
			assertThat(child.stop()).as("%s stops cleanly", child).isEqualTo(ChildConsumer.SIGTERM_EXIT);
		}

		OrderBook.LedgerCheck ledger = book.check(database);
		Map<String, Integer> deadLetters = deadLetters(topic);
		boolean caughtUp = this.cluster.caughtUp(group, topic, PARTITIONS);
		int listenerThreads = ackModes.contains("batch") ? 50 : 1;
		run.account(listenerThreads);
		run.report(Duration.ofNanos(System.nanoTime() - started), book, ledger, false, outage, this.outageLength,
				deadLetters, caughtUp);

		assertThat(ledger.exactlyOnce()).as("every order credited exactly once: %s", ledger).isTrue();
		assertThat(deadLetters.keySet()).as("dead-letter topic: only the poison, no valid order").isEqualTo(run.poison);
		assertThat(caughtUp).as("committed offsets reached the end of every partition").isTrue();
		assertThat(resumed).as("consumption resumed after the restore within").isLessThan(Duration.ofSeconds(10));
		assertThat(run.journaledPauses()).as("pauses in the journals (P lines)").isPositive();
		assertThat(run.meteredPauses()).as("idempotency.listener.pauses of the cleanly stopped consumers").isPositive();
		assertThat(run.accounting.problems).as("journal checks").isEmpty();
		assertThat(run.accounting.closes()).as("accounting %s", run.accounting.equation()).isTrue();
		if (killAndLeave) {
			assertThat(rebalancedWhileDown).as("rebalances that reached the paused consumer b during the outage")
				.isPositive();
		}
		return run;
	}

	/** Starts a child; its name is unique in the run (the children of all scenarios share a directory). */
	private ChildConsumer start(OutageRun run, TcpProxy postgres, String topic, String group, String name,
			String ackMode) {
		String applicationName = "fault-" + run.database().runId() + "-" + name;
		Map<String, String> properties = this.cluster.consumerProperties(topic, group, applicationName);
		properties.putAll(run.database().consumerPropertiesThrough(postgres, applicationName));
		properties.put("idempotency.fail-closed.probe-interval", "500ms");
		// Shorter than the outage: each consumer thread leaves its wait, polls (so it takes part in a
		// rebalance), gets the same records back, fails on the database again and waits again.
		properties.put("idempotency.fail-closed.max-wait", "10s");
		return run.add(ChildConsumer.start(name, this.cluster.directory(), ackMode, properties));
	}

	/** Assignments a consumer has announced so far (its {@code ASSIGNED} lines). */
	private static long assignments(ChildConsumer child) {
		return child.faultLines().stream().filter((line) -> line.startsWith("ASSIGNED")).count();
	}

	private void send(String topic, List<OrderBook.Message> messages) {
		List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
		messages.forEach((message) -> records.add(new ProducerRecord<>(topic, message.name(), message.bytes())));
		this.cluster.sendAndFlush(records);
	}

	private Map<String, Integer> deadLetters(String topic) {
		Map<String, Integer> keys = new TreeMap<>();
		for (ConsumerRecord<String, byte[]> record : this.cluster.readAll(topic + ".DLT", 1)) {
			keys.merge(String.valueOf(record.key()), 1, Integer::sum);
		}
		return keys;
	}

}
