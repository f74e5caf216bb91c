package dev.idempotency.fault;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fault-injection suite (issue 6). A stream of orders, with producer duplicates and poison
 * messages, is consumed by child JVMs running {@link FaultConsumerApplication} in one consumer group,
 * while the suite SIGKILLs them before the commit, after the commit (before the offset commit) and
 * at random times, restarts them, forces rebalances with an extra consumer, and drops a child's
 * database connections while it holds an open transaction. At the end:
 * <ul>
 * <li>every order is credited exactly once (one ledger row per order, the ledger sum and every
 * balance as sent), and none is missing;</li>
 * <li>every poison message, and nothing else, is on {@code <topic>.DLT};</li>
 * <li>the group's committed offsets reached the end of every partition;</li>
 * <li>the accounting closes: received = processed + duplicate + failed + rejected (+ in_progress)
 * + in flight at a kill, from the journals the children wrote (see {@link EventJournal}).</li>
 * </ul>
 * Short mode by default (5,000 orders, 12 kills); {@code -Dfault.soak=true} for 50,000 orders and
 * 100 kills; each number can be set ({@code fault.messages}, {@code fault.kills},
 * {@code fault.db-drops}, {@code fault.rebalances}, {@code fault.poison}, {@code fault.seed}). See
 * {@code docs/reliability.md}.
 * <p>
 * The transport-specific parts are the broker ({@link FaultCluster}), the child application and its
 * listener; the child processes ({@link ChildConsumer}), the database ({@link FaultDatabase}), the
 * journals and their {@link Accounting} are shared with the Redis Stream suite,
 * {@link RedisStreamFaultInjectionIntegrationTests}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultInjectionIntegrationTests {

	private static final int PARTITIONS = 4;

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);

	private static final Pattern WHERE = Pattern.compile("key=(\\S+) partition=(\\d+) offset=(\\d+)");

	/** What the suite does to the consumers. */
	enum Fault {

		KILL_BEFORE_COMMIT, KILL_AFTER_COMMIT, KILL_RANDOM, DB_DROP_BEFORE_COMMIT, REBALANCE

	}

	private final boolean soak = Boolean.getBoolean("fault.soak");

	private final int orders = Integer.getInteger("fault.messages", this.soak ? 50_000 : 5_000);

	private final int kills = Integer.getInteger("fault.kills", this.soak ? 100 : 12);

	private final int dbDrops = Integer.getInteger("fault.db-drops", this.soak ? 10 : 2);

	private final int rebalances = Integer.getInteger("fault.rebalances", this.soak ? 20 : 3);

	private final int poisonPerKind = Integer.getInteger("fault.poison", this.soak ? 5 : 2);

	private final double duplicateRatio = Double.parseDouble(System.getProperty("fault.duplicate-ratio", "0.1"));

	private final long seed = Long.getLong("fault.seed", System.nanoTime());

	private final Random random = new Random(this.seed);

	private final OrderBook book = new OrderBook(this.random);

	private FaultCluster cluster;

	private String topic;

	private String group;

	// The stream

	private final List<ProducerRecord<String, byte[]>> stream = new ArrayList<>();

	private int sent;

	private final Set<String> poisonKeys = new TreeSet<>();

	private int duplicatesInjected;

	private int crossPartitionDuplicates;

	private int extraOrders;

	// The consumers

	private final Map<String, ChildConsumer> slots = new HashMap<>();

	private final Map<String, Integer> incarnations = new HashMap<>();

	private final List<ChildConsumer> children = new ArrayList<>();

	private final Map<Fault, Integer> done = new EnumMap<>(Fault.class);

	private int restarts;

	/** Keys whose after-commit kill was verified (committed in the DB, offset not committed). */
	private final Map<String, String> afterCommitKills = new LinkedHashMap<>();

	/** The orders committed in the transaction of each after-commit kill's key (a poll's, with batching). */
	private final Map<String, List<String>> afterCommitTransactions = new LinkedHashMap<>();

	/** Keys whose transaction lost its connection at the before-commit point, and by which child. */
	private final Map<String, String> droppedConnections = new LinkedHashMap<>();

	private final List<String> log = new ArrayList<>();

	@BeforeAll
	void start() {
		this.cluster = new FaultCluster("suite");
		this.topic = "orders-" + this.cluster.runId();
		this.group = "points-" + this.cluster.runId();
		this.cluster.createTopic(this.topic, PARTITIONS);
	}

	@AfterAll
	void stop() {
		if (this.cluster != null) {
			try {
				this.cluster.database().deleteRunData(Set.of(this.group));
			}
			finally {
				this.cluster.close();
			}
		}
	}

	@Test
	void everyOrderIsCreditedExactlyOnceThroughKillsRebalancesAndDroppedConnections() {
		long started = System.nanoTime();
		List<Fault> schedule = schedule();
		buildStream();
		int batch = Math.max(1, this.stream.size() / (schedule.size() + 1));
		note("seed %d: %d orders, %d producer duplicates (%d to another partition), %d poison; schedule %s", this.seed,
				this.orders, this.duplicatesInjected, this.crossPartitionDuplicates, this.poisonKeys.size(), schedule);
		restart("a");
		restart("b");
		int step = 0;
		for (Fault fault : schedule) {
			step++;
			String slot = (step % 2 == 0) ? "a" : "b";
			long at = System.nanoTime();
			switch (fault) {
				case KILL_BEFORE_COMMIT -> killAtPoint(slot, FaultPoints.Point.BEFORE_COMMIT, batch);
				case KILL_AFTER_COMMIT -> killAtPoint(slot, FaultPoints.Point.AFTER_COMMIT, batch);
				case KILL_RANDOM -> killAtRandom(slot, batch);
				case DB_DROP_BEFORE_COMMIT -> dropConnectionAtCommit(slot, batch);
				case REBALANCE -> rebalance(batch);
			}
			this.done.merge(fault, 1, Integer::sum);
			note("step %d/%d %s on %s done in %d ms (sent %d/%d)", step, schedule.size(), fault,
					(fault == Fault.REBALANCE) ? "c" : slot, Duration.ofNanos(System.nanoTime() - at).toMillis(),
					this.sent, this.stream.size());
		}
		sendNext(this.stream.size() - this.sent);
		ready("a");
		ready("b");
		Duration drain = this.soak ? Duration.ofMinutes(20) : Duration.ofMinutes(4);
		await().atMost(drain)
			.pollInterval(Duration.ofMillis(500))
			.until(() -> this.cluster.database().distinctOrdersCredited("ord-") >= this.book.uniqueOrders()
					&& this.cluster.caughtUp(this.group, this.topic, PARTITIONS));
		for (String slot : List.of("a", "b")) {
			ChildConsumer child = this.slots.get(slot);
			assertThat(child.stop()).as("%s stops cleanly", child).isEqualTo(ChildConsumer.SIGTERM_EXIT);
		}
		Duration duration = Duration.ofNanos(System.nanoTime() - started);
		verifyAndReport(duration);
		verifyMore(this.book.uniqueOrders());
	}

	/**
	 * Further system properties of every consumer: a subclass runs the same suite with a feature on.
	 * @return the properties, none here
	 */
	protected Map<String, String> extraConsumerProperties() {
		return Map.of();
	}

	/**
	 * How a consumer acknowledges: slot a {@code AckMode.MANUAL_IMMEDIATE} (the interceptor
	 * acknowledges after commit), slot b {@code AckMode.RECORD} (the container commits after the
	 * method returned); c alternates.
	 * @param slot the consumer's slot
	 * @param incarnation its incarnation in the slot, from 1
	 * @return the child's {@code fault.ack-mode}
	 */
	protected String ackMode(String slot, int incarnation) {
		return switch (slot) {
			case "a" -> "manual_immediate";
			case "b" -> "record";
			default -> (incarnation % 2 == 0) ? "record" : "manual_immediate";
		};
	}

	/**
	 * At most how many times an armed child passes its kill point before it stops there (the
	 * number is drawn between 1 and this).
	 * @return 25: one pass per record here
	 */
	protected int pointPassesBeforeAStop() {
		return 25;
	}

	/**
	 * How many deliveries a killed consumer may leave without an outcome.
	 * @return one: the record its consumer thread was in
	 */
	protected int deliveriesInFlightAtAKill() {
		return 1;
	}

	/**
	 * Whether the invocation whose connection was dropped at the before-commit point ends
	 * {@code failed} (its commit fails in its own transaction).
	 * @return {@code true} here
	 */
	protected boolean droppedConnectionFailsItsInvocation() {
		return true;
	}

	/**
	 * Checks how many orders each transaction credited.
	 * @param transactionsBySize transactions per number of orders credited
	 * @param afterCommitKills the orders committed in each transaction killed after its commit
	 */
	protected void verifyTransactions(Map<Integer, Integer> transactionsBySize, List<Integer> afterCommitKills) {
		assertThat(transactionsBySize.keySet()).as("orders credited per transaction, record by record").containsOnly(1);
		assertThat(afterCommitKills).as("orders per transaction killed after commit").containsOnly(1);
	}

	/**
	 * Further checks of a subclass, after the ledger and the dead letters were verified.
	 * @param uniqueOrders the valid orders sent
	 */
	protected void verifyMore(int uniqueOrders) {
	}

	// Schedule and stream

	private List<Fault> schedule() {
		List<Fault> schedule = new ArrayList<>();
		int afterCommit = Math.round(this.kills * 0.4f);
		int beforeCommit = Math.round(this.kills * 0.3f);
		int randomKills = this.kills - afterCommit - beforeCommit;
		schedule.addAll(Collections.nCopies(afterCommit, Fault.KILL_AFTER_COMMIT));
		schedule.addAll(Collections.nCopies(beforeCommit, Fault.KILL_BEFORE_COMMIT));
		schedule.addAll(Collections.nCopies(randomKills, Fault.KILL_RANDOM));
		schedule.addAll(Collections.nCopies(this.dbDrops, Fault.DB_DROP_BEFORE_COMMIT));
		schedule.addAll(Collections.nCopies(this.rebalances, Fault.REBALANCE));
		Collections.shuffle(schedule, this.random);
		return schedule;
	}

	/**
	 * Orders {@code ord-<n>}, keyed by order id; about {@link #duplicateRatio} of them re-sent later
	 * (a producer retry: same business key, new offset), half of those to another partition, where
	 * another consumer may get it while the first is still in flight; poison messages spread through
	 * the first half of the stream.
	 */
	private void buildStream() {
		List<int[]> pendingDuplicates = new ArrayList<>();
		List<ProducerRecord<String, byte[]>> originals = new ArrayList<>();
		for (int i = 0; i < this.orders; i++) {
			originals.add(newOrder());
		}
		List<ProducerRecord<String, byte[]>> withDuplicates = new ArrayList<>();
		for (int i = 0; i < originals.size(); i++) {
			ProducerRecord<String, byte[]> original = originals.get(i);
			withDuplicates.add(original);
			if (this.random.nextDouble() < this.duplicateRatio) {
				pendingDuplicates.add(new int[] { i, i + 1 + this.random.nextInt(300) });
			}
			for (var iterator = pendingDuplicates.iterator(); iterator.hasNext();) {
				int[] pending = iterator.next();
				if (pending[1] <= i) {
					withDuplicates.add(duplicate(originals.get(pending[0])));
					iterator.remove();
				}
			}
		}
		pendingDuplicates.forEach((pending) -> withDuplicates.add(duplicate(originals.get(pending[0]))));
		this.stream.addAll(withDuplicates);
		List<ProducerRecord<String, byte[]>> poison = new ArrayList<>();
		for (int i = 1; i <= this.poisonPerKind; i++) {
			poison.add(poison("poison-bytes-" + i, ("{not json: order " + i).getBytes(StandardCharsets.UTF_8)));
			poison.add(poison("poison-nokey-" + i, FaultCluster.json(null, "u-poison", 10)));
			poison.add(poison("poison-negative-" + i, FaultCluster.json("poison-negative-" + i, "u-poison", -5)));
		}
		for (ProducerRecord<String, byte[]> record : poison) {
			this.stream.add(this.random.nextInt(Math.max(1, this.stream.size() / 2)), record);
			this.poisonKeys.add(record.key());
		}
	}

	private ProducerRecord<String, byte[]> newOrder() {
		OrderBook.Message order = this.book.newOrder();
		return new ProducerRecord<>(this.topic, order.name(), order.bytes());
	}

	private ProducerRecord<String, byte[]> duplicate(ProducerRecord<String, byte[]> original) {
		this.duplicatesInjected++;
		if (this.random.nextBoolean()) {
			return new ProducerRecord<>(this.topic, original.key(), original.value());
		}
		this.crossPartitionDuplicates++;
		int home = Utils.toPositive(Utils.murmur2(original.key().getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
		int other = (home + 1 + this.random.nextInt(PARTITIONS - 1)) % PARTITIONS;
		return new ProducerRecord<>(this.topic, other, original.key(), original.value());
	}

	private ProducerRecord<String, byte[]> poison(String key, byte[] value) {
		return new ProducerRecord<>(this.topic, key, value);
	}

	private void sendNext(int count) {
		int end = Math.min(this.stream.size(), this.sent + count);
		if (end > this.sent) {
			this.cluster.sendAndFlush(this.stream.subList(this.sent, end));
			this.sent = end;
		}
	}

	/** When the planned stream is exhausted before a kill point was reached: more orders. */
	private void sendMore(int batch) {
		if (this.sent < this.stream.size()) {
			sendNext(batch);
			return;
		}
		List<ProducerRecord<String, byte[]>> more = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			more.add(newOrder());
		}
		this.extraOrders += more.size();
		this.stream.addAll(more);
		sendNext(more.size());
	}

	// Consumers

	private ChildConsumer restart(String slot) {
		int incarnation = this.incarnations.merge(slot, 1, Integer::sum);
		String name = slot + incarnation;
		String ackMode = ackMode(slot, incarnation);
		Map<String, String> properties = new LinkedHashMap<>(
				this.cluster.consumerProperties(this.topic, this.group, applicationName(name)));
		properties.putAll(extraConsumerProperties());
		ChildConsumer child = ChildConsumer.start(name, this.cluster.directory(), ackMode, properties);
		this.slots.put(slot, child);
		this.children.add(child);
		if (incarnation > 1 && !"c".equals(slot)) {
			this.restarts++;
		}
		return child;
	}

	private String applicationName(String child) {
		return "fault-" + this.cluster.runId() + "-" + child;
	}

	private ChildConsumer ready(String slot) {
		ChildConsumer child = this.slots.get(slot);
		if (child == null || !child.isAlive()) {
			child = restart(slot);
		}
		child.awaitAssigned(READY_TIMEOUT);
		return child;
	}

	private void killAtPoint(String slot, FaultPoints.Point point, int batch) {
		ChildConsumer child = ready(slot);
		String where = stopAt(child, point, batch);
		Matcher matcher = WHERE.matcher(where);
		assertThat(matcher.find()).as(where).isTrue();
		String key = matcher.group(1);
		int partition = Integer.parseInt(matcher.group(2));
		long offset = Long.parseLong(matcher.group(3));
		if (point == FaultPoints.Point.AFTER_COMMIT) {
			assertThat(this.cluster.database().creditedBy(key)).as("%s at after-commit: %s is committed in the database", child, key)
				.containsExactly(child.name());
			Long committed = this.cluster.committedOffsets(this.group).get(partition);
			assertThat(committed).as("%s at after-commit: offset %d of partition %d is not committed", child, offset,
					partition)
				.satisfiesAnyOf((c) -> assertThat(c).isNull(), (c) -> assertThat(c).isLessThanOrEqualTo(offset));
			this.afterCommitKills.put(key, child.name());
			this.afterCommitTransactions.put(key, this.cluster.database().committedWith(key, child.name()));
		}
		else {
			assertThat(this.cluster.database().creditedBy(key)).as("%s at before-commit: %s is not committed", child, key).isEmpty();
		}
		assertThat(child.kill()).as("exit status of SIGKILLed %s", child).isEqualTo(ChildConsumer.SIGKILL_EXIT);
		restart(slot);
	}

	/** Arms the point in the child, feeds it orders until it stops there, returns the point's line. */
	private String stopAt(ChildConsumer child, FaultPoints.Point point, int batch) {
		return child.stopAt(point, 1 + this.random.nextInt(pointPassesBeforeAStop()), () -> sendNext(batch),
				() -> sendMore(batch));
	}

	private void killAtRandom(String slot, int batch) {
		ChildConsumer child = ready(slot);
		sendNext(batch);
		sleep(100 + this.random.nextInt(1900));
		assertThat(child.kill()).as("exit status of SIGKILLed %s", child).isEqualTo(ChildConsumer.SIGKILL_EXIT);
		restart(slot);
	}

	/**
	 * The child holds an open transaction (dedup row and business writes done) at the before-commit
	 * point; the suite terminates its PostgreSQL backends, then lets it commit. The commit fails,
	 * nothing is acknowledged, and the retry (on a fresh connection) credits the order once.
	 */
	private void dropConnectionAtCommit(String slot, int batch) {
		ChildConsumer child = ready(slot);
		int mark = child.lineCount();
		String where = stopAt(child, FaultPoints.Point.BEFORE_COMMIT, batch);
		Matcher matcher = WHERE.matcher(where);
		assertThat(matcher.find()).isTrue();
		int terminated = this.cluster.database().terminateConnections(applicationName(child.name()));
		assertThat(terminated).as("backends of %s terminated", child).isPositive();
		child.command("release");
		assertThat(child.awaitLine(mark, (line) -> line.startsWith("RELEASED"), Duration.ofSeconds(30)))
			.as("%s released", child)
			.isNotNull();
		this.droppedConnections.put(matcher.group(1), child.name());
	}

	private void rebalance(int batch) {
		long started = System.nanoTime();
		ChildConsumer extra = restart("c");
		extra.awaitAssigned(READY_TIMEOUT);
		long assigned = System.nanoTime();
		sendNext(batch);
		try {
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.until(() -> !Journal.read(extra.name(), extra.journal()).outcomes.isEmpty());
		}
		catch (org.awaitility.core.ConditionTimeoutException ex) {
			// Its partitions may have had nothing new; it joined and leaves all the same.
			note("%s handled no record before it was stopped", extra.name());
		}
		long handled = System.nanoTime();
		assertThat(extra.stop()).as("%s stops cleanly", extra).isEqualTo(ChildConsumer.SIGTERM_EXIT);
		note("%s assigned after %d ms, handled a record %d ms later, stopped in %d ms", extra.name(),
				Duration.ofNanos(assigned - started).toMillis(), Duration.ofNanos(handled - assigned).toMillis(),
				Duration.ofNanos(System.nanoTime() - handled).toMillis());
	}

	// Verification

	private void verifyAndReport(Duration duration) {
		// Exactly once, nothing lost.
		OrderBook.LedgerCheck ledger = this.book.check(this.cluster.database());
		Map<String, Integer> doubles = ledger.doubles();
		Set<String> missing = ledger.missing();

		// Dead letters.
		List<ConsumerRecord<String, byte[]>> deadLetters = this.cluster.readAll(this.topic + ".DLT", 1);
		Map<String, Integer> deadLettersByKey = new TreeMap<>();
		deadLetters.forEach((record) -> deadLettersByKey.merge(String.valueOf(record.key()), 1, Integer::sum));

		// Journals: accounting.
		Accounting accounting = new Accounting(this.children, this.cluster.database(), deliveriesInFlightAtAKill());
		long received = accounting.received;
		long inFlight = accounting.inFlight;
		long returned = accounting.returned;
		long inFlightCommitted = accounting.inFlightCommitted;
		long deadLettered = accounting.deadLettered;
		Set<String> generations = accounting.generations;
		List<String> problems = accounting.problems;
		long processed = accounting.count("processed");
		long duplicate = accounting.count("duplicate");
		long failed = accounting.count("failed");
		long rejected = accounting.count("rejected");
		long inProgress = accounting.count("in_progress");

		// Each order of a verified after-commit kill's transaction came back as a duplicate; each
		// dropped connection failed.
		for (Map.Entry<String, String> kill : this.afterCommitKills.entrySet()) {
			for (String order : this.afterCommitTransactions.get(kill.getKey())) {
				// A redelivery whose incarnation a later kill took before its outcome line came back too.
				if (!accounting.duplicateElsewhere(order, kill.getValue())
						&& !accounting.inFlightAtKillElsewhere(order, kill.getValue())) {
					problems.add(order + " (committed with " + kill.getKey() + ", killed after commit in "
							+ kill.getValue() + ") never came back as a duplicate");
				}
			}
		}
		for (Map.Entry<String, String> drop : this.droppedConnections.entrySet()) {
			boolean failedThere = accounting.journals.get(drop.getValue()).outcomes.stream()
				.anyMatch((o) -> o.outcome().equals("failed") && o.key().equals(drop.getKey()));
			if (droppedConnectionFailsItsInvocation() && !failedThere) {
				problems.add(drop.getKey() + ": the commit without a connection in " + drop.getValue()
						+ " did not end as failed");
			}
		}

		int totalKills = this.done.getOrDefault(Fault.KILL_BEFORE_COMMIT, 0)
				+ this.done.getOrDefault(Fault.KILL_AFTER_COMMIT, 0) + this.done.getOrDefault(Fault.KILL_RANDOM, 0);
		int uniqueOrders = this.book.uniqueOrders();
		Map<Integer, Integer> transactionsBySize = this.cluster.database().transactionsBySize();
		report(duration, uniqueOrders, totalKills, received, processed, duplicate, failed, rejected,
				inProgress, returned, inFlight, inFlightCommitted, deadLettered, deadLetters.size(), deadLettersByKey,
				generations, transactionsBySize, doubles, missing, problems);

		assertThat(doubles).as("orders credited more than once").isEmpty();
		assertThat(missing).as("orders never credited (lost)").isEmpty();
		assertThat(ledger.unexpected()).as("ledger rows for orders never sent").isEmpty();
		assertThat(ledger.sum()).as("ledger sum").isEqualTo(ledger.expectedSum());
		assertThat(this.cluster.database().balances()).as("balances").isEqualTo(this.book.expectedBalances());
		assertThat(deadLettersByKey.keySet()).as("dead-letter topic: exactly the poison messages")
			.isEqualTo(this.poisonKeys);
		assertThat(this.cluster.caughtUp(this.group, this.topic, PARTITIONS)).as("committed offsets at the end").isTrue();
		assertThat(problems).as("journal checks").isEmpty();
		assertThat(received)
			.as("received = processed + duplicate + failed + rejected + in_progress + returned + in flight at kills")
			.isEqualTo(processed + duplicate + failed + rejected + inProgress + returned + inFlight);
		assertThat(processed + inFlightCommitted).as("processed + committed in flight = unique orders")
			.isEqualTo(uniqueOrders);
		// A delivery in flight at a kill and not committed is journaled as in flight, not as the
		// duplicate it may have been (a redelivery after an earlier kill, or a producer's resend).
		assertThat(duplicate)
			.as("duplicates >= producer duplicates + after-commit kills - uncommitted deliveries in flight at kills")
			.isGreaterThanOrEqualTo(this.duplicatesInjected + this.afterCommitKills.size() - (inFlight - inFlightCommitted));
		assertThat(rejected).as("rejected >= poison without a key").isGreaterThanOrEqualTo(this.poisonPerKind);
		assertThat(failed).as("failed >= attempts of negative-points poison + dropped connections")
			.isGreaterThanOrEqualTo(5L * this.poisonPerKind
					+ (droppedConnectionFailsItsInvocation() ? this.droppedConnections.size() : 0));
		assertThat(totalKills).as("kills").isGreaterThanOrEqualTo(this.kills);
		verifyTransactions(transactionsBySize, afterCommitKillSizes());
	}

	private List<Integer> afterCommitKillSizes() {
		return this.afterCommitTransactions.values().stream().map(List::size).toList();
	}

	private void report(Duration duration, int uniqueOrders, int totalKills, long received, long processed,
			long duplicate, long failed, long rejected, long inProgress, long returned, long inFlight,
			long inFlightCommitted,
			long deadLettered, int deadLetterRecords, Map<String, Integer> deadLettersByKey, Set<String> generations,
			Map<Integer, Integer> transactionsBySize,
			Map<String, Integer> doubles, Set<String> missing, List<String> problems) {
		boolean passed = doubles.isEmpty() && missing.isEmpty() && problems.isEmpty()
				&& received == processed + duplicate + failed + rejected + inProgress + returned + inFlight
				&& processed + inFlightCommitted == uniqueOrders && deadLettersByKey.keySet().equals(this.poisonKeys);
		FaultReport report = new FaultReport(
				"Fault-injection run " + this.cluster.runId() + " (" + (this.soak ? "soak" : "short") + " mode)");
		report.row("result", passed ? "**PASSED**" : "**FAILED**");
		report.row("duration", String.format("%d s", duration.toSeconds()));
		report.row("seed", String.valueOf(this.seed));
		report.row("messages sent", String.valueOf(this.sent));
		report.row("unique orders", uniqueOrders + ((this.extraOrders > 0) ? " (" + this.extraOrders + " extra to reach kill points)" : ""));
		report.row("producer duplicates injected", this.duplicatesInjected + " (" + this.crossPartitionDuplicates
				+ " to another partition)");
		report.row("poison messages", this.poisonKeys.size() + " (" + this.poisonPerKind
				+ " each: undeserializable, no key, always failing)");
		report.row("kills (SIGKILL)", totalKills + ": before commit " + this.done.getOrDefault(Fault.KILL_BEFORE_COMMIT, 0)
				+ ", after commit before offset commit " + this.done.getOrDefault(Fault.KILL_AFTER_COMMIT, 0)
				+ " (verified: DB committed, offset not), random " + this.done.getOrDefault(Fault.KILL_RANDOM, 0));
		report.row("connections dropped at commit", String.valueOf(this.done.getOrDefault(Fault.DB_DROP_BEFORE_COMMIT, 0)));
		report.row("restarts", String.valueOf(this.restarts));
		report.row("forced rebalances (extra consumer joined and left)", String.valueOf(this.done.getOrDefault(Fault.REBALANCE, 0)));
		report.row("group generations seen", String.valueOf(generations.size()));
		report.row("consumer incarnations", String.valueOf(this.children.size()));
		report.row("received (deliveries reaching the listener)", String.valueOf(received));
		report.row("processed / duplicate / failed / rejected / in_progress",
				processed + " / " + duplicate + " / " + failed + " / " + rejected + " / " + inProgress);
		if (returned > 0) {
			report.row("returned after a failed record of their poll (delivered again)", String.valueOf(returned));
		}
		report.row("transactions by orders credited", transactionsBySize.toString());
		report.row("orders committed in each transaction killed after commit", afterCommitKillSizes().toString());
		report.row("in flight at a kill", inFlight + " (" + inFlightCommitted + " of them committed before the kill)");
		report.row("accounting", received + " = " + processed + " + " + duplicate + " + " + failed + " + " + rejected
				+ " + " + inProgress + " + " + ((returned > 0) ? returned + " + " : "") + inFlight
				+ ((received == processed + duplicate + failed + rejected + inProgress + returned + inFlight) ? " ✔" : " ✘"));
		report.row("credited exactly once", (uniqueOrders - doubles.size() - missing.size()) + " of " + uniqueOrders
				+ " (doubles: " + doubles.size() + ", missing: " + missing.size() + ")");
		report.row("dead-letter topic", deadLetterRecords + " records for " + deadLettersByKey.size() + " poison keys; "
				+ deadLettered + " dead-letter publications journaled");
		if (!problems.isEmpty()) {
			report.row("problems", String.join("; ", problems));
		}
		report.steps(this.log).publish(this.cluster.directory(), "latest-report.md");
	}

	private void note(String format, Object... args) {
		String line = String.format(format, args);
		this.log.add(line);
		System.out.println("[fault] " + line);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
