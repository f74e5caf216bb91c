package dev.idempotency.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leased mode with a side effect outside the database (issue 16): child JVMs running
 * {@link FaultLeasedConsumerApplication} charge each order at an HTTP payment provider (the
 * {@link ChargeStub} in this JVM) under {@code @Idempotent(mode = LEASED)}, with the JDBC store on
 * PostgreSQL, and the suite SIGKILLs them before the call (key claimed, nothing charged), during it
 * (the provider has charged and holds the answer) and after it (answered, key not yet completed),
 * restarting a consumer after each kill.
 * <ul>
 * <li>With an {@code IdempotencyReconciler} that asks the provider, no delivery takes over an ended
 * lease: the reconciler settles it (charged: completed, none: retry, unknown: parked), so every order
 * is charged exactly once, and the orders the provider could not tell about are parked, not charged
 * again.</li>
 * <li>Without one, the next delivery takes over an ended lease: a kill during or after the call
 * charges the order once more (the documented at-least-once window of leased mode), a kill before
 * it does not. The suite checks exactly that: charges = 1 + kills in the window, per order.</li>
 * </ul>
 * Either way every order is charged, every record's offset is committed and nothing is
 * dead-lettered. Each variant prints a {@link FaultReport}. {@code fault.seed} repeats a run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeasedSideEffectFaultIntegrationTests {

	private static final int PARTITIONS = 2;

	private static final String LEASE = "3s";

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

	/**
	 * From the kill until the next incarnation settled the order: it includes that JVM's start, which
	 * took 60 s on a loaded 2-core CI machine (the settling itself takes seconds after the lease).
	 */
	private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(150);

	private static final Pattern WHERE = Pattern.compile("key=(\\S+) partition=(\\d+) offset=(\\d+)");

	private static final String PROCESSING = "PROCESSING";

	private static final String COMPLETED = "COMPLETED";

	private static final String PARKED = "PARKED";

	private final long seed = Long.getLong("fault.seed", System.nanoTime());

	private FaultCluster cluster;

	private ChargeStub stub;

	private final Set<String> groups = new HashSet<>();

	@BeforeAll
	void start() {
		this.cluster = new FaultCluster("leased");
		this.stub = ChargeStub.start();
	}

	@AfterAll
	void stop() {
		try {
			if (this.cluster != null) {
				try {
					// No child may claim a key after its namespace was cleaned up: its claim would be a
					// leftover that a later run's reconciler finds.
					ChildConsumer.destroyAll();
					if (!Boolean.getBoolean("fault.keep-data")) {
						for (String group : this.groups) {
							this.cluster.database()
								.jdbc()
								.update("DELETE FROM idempotency_record WHERE namespace LIKE ?", group + "%");
						}
					}
				}
				finally {
					this.cluster.close();
				}
			}
		}
		finally {
			if (this.stub != null) {
				this.stub.close();
			}
		}
	}

	/**
	 * With a reconciler: 80 orders, 6 producer duplicates, 3 kills before the call, 3 during, 3
	 * after; the provider answers {@code unknown} for one order killed during and one killed after
	 * the call. Every order is charged exactly once; the two unknown ones are parked.
	 */
	@Test
	void withAReconcilerEveryOrderIsChargedExactlyOnceAndUnknownOnesAreParked() {
		Run run = new Run("rec", true, 80, 6,
				Map.of(FaultPoints.Point.BEFORE_CALL, 3, FaultPoints.Point.DURING_CALL, 3, FaultPoints.Point.AFTER_CALL, 3));
		run.execute();
		run.verifyWithReconciler();
	}

	/**
	 * Without a reconciler the next delivery takes over an ended lease: 60 orders, 4 producer
	 * duplicates, 2 kills before the call, 2 during, 2 after. An order killed during or after the
	 * call is charged twice (once per kill in that window, plus the takeover's charge); every other
	 * order once. This is what the reconciler prevents.
	 */
	@Test
	void withoutAReconcilerAKillDuringOrAfterTheCallChargesTwice() {
		Run run = new Run("tko", false, 60, 4,
				Map.of(FaultPoints.Point.BEFORE_CALL, 2, FaultPoints.Point.DURING_CALL, 2, FaultPoints.Point.AFTER_CALL, 2));
		run.execute();
		run.verifyWithoutReconciler();
	}

	/** A kill: where, which order, in which incarnation, and the provider's count at the kill. */
	record Kill(FaultPoints.Point point, String orderId, String child, boolean unknown, int chargesAtKill) {

		boolean inWindow() {
			return this.point != FaultPoints.Point.BEFORE_CALL;
		}

	}

	/** One variant's run: its topic, group, stream and consumers. */
	private final class Run {

		private final String prefix;

		private final boolean reconciler;

		private final Map<FaultPoints.Point, Integer> plannedKills;

		private final Random random;

		private final String topic;

		private final String group;

		private final List<ProducerRecord<String, byte[]>> stream = new ArrayList<>();

		private final Set<String> orders = new LinkedHashSet<>();

		private int producerDuplicates;

		private int sent;

		private int nextOrder;

		private int batch;

		private final List<ChildConsumer> children = new ArrayList<>();

		private ChildConsumer current;

		private final List<Kill> kills = new ArrayList<>();

		private final List<String> log = new ArrayList<>();

		private String finalMetrics;

		private long started;

		Run(String prefix, boolean reconciler, int orders, int duplicates, Map<FaultPoints.Point, Integer> kills) {
			this.prefix = prefix + "-";
			this.reconciler = reconciler;
			this.plannedKills = new EnumMap<>(kills);
			this.random = new Random(LeasedSideEffectFaultIntegrationTests.this.seed + prefix.hashCode());
			this.topic = "leased-" + prefix + "-" + cluster().runId();
			this.group = this.topic + "-charges";
			LeasedSideEffectFaultIntegrationTests.this.groups.add(this.group);
			buildStream(orders, duplicates);
		}

		/** Orders {@code <prefix>-<n>} keyed by order id; some re-sent later (a producer retry). */
		private void buildStream(int count, int duplicates) {
			for (int i = 0; i < count; i++) {
				this.stream.add(newOrder());
			}
			for (int i = 0; i < duplicates; i++) {
				int original = this.random.nextInt(count - 5);
				int at = original + 1 + this.random.nextInt(count - original);
				this.stream.add(Math.min(at, this.stream.size()), copy(this.stream.get(original)));
				this.producerDuplicates++;
			}
		}

		private ProducerRecord<String, byte[]> newOrder() {
			String orderId = this.prefix + (++this.nextOrder);
			this.orders.add(orderId);
			return new ProducerRecord<>(this.topic, orderId, FaultCluster.json(orderId, "u-" + (this.nextOrder % 5), 1));
		}

		private ProducerRecord<String, byte[]> copy(ProducerRecord<String, byte[]> original) {
			return new ProducerRecord<>(this.topic, original.key(), original.value());
		}

		void execute() {
			this.started = System.nanoTime();
			cluster().createTopic(this.topic, PARTITIONS);
			List<FaultPoints.Point> schedule = new ArrayList<>();
			this.plannedKills.forEach((point, count) -> schedule.addAll(Collections.nCopies(count, point)));
			Collections.shuffle(schedule, this.random);
			// With a reconciler, the provider cannot tell for the first kill during and the first after the call.
			Set<FaultPoints.Point> unknownYet = this.reconciler
					? new HashSet<>(Set.of(FaultPoints.Point.DURING_CALL, FaultPoints.Point.AFTER_CALL)) : new HashSet<>();
			this.batch = Math.max(1, this.stream.size() / (schedule.size() + 1));
			note("seed %d, %s reconciler: %d orders, %d producer duplicates, lease %s; kills %s", seed(),
					this.reconciler ? "with" : "without", this.orders.size(), this.producerDuplicates, LEASE, schedule);
			restart();
			int step = 0;
			for (FaultPoints.Point point : schedule) {
				step++;
				long at = System.nanoTime();
				Kill kill = killAt(point, unknownYet.remove(point));
				note("step %d/%d done: killed %s at %s on %s (charges at the kill: %d%s), settled in %d ms", step,
						schedule.size(), kill.child(), label(point), kill.orderId(), kill.chargesAtKill(),
						kill.unknown() ? ", provider answers unknown" : "", millisSince(at));
			}
			sendNext(this.stream.size() - this.sent);
			ChildConsumer last = ready();
			await().atMost(Duration.ofMinutes(2))
				.pollInterval(Duration.ofMillis(300))
				.until(() -> stub().chargesPerOrder(this.prefix).keySet().containsAll(this.orders)
						&& cluster().caughtUp(this.group, this.topic, PARTITIONS) && countStatus(PROCESSING) == 0);
			assertThat(last.stop()).as("%s stops cleanly", last).isEqualTo(ChildConsumer.SIGTERM_EXIT);
			this.finalMetrics = last.findLine(0, (line) -> line.startsWith("METRICS"));
			note("drained: %s stopped cleanly: %s", last.name(), this.finalMetrics);
		}

		private Kill killAt(FaultPoints.Point point, boolean unknown) {
			ChildConsumer child = ready();
			String line = child.stopAt(point, 1 + this.random.nextInt(4), () -> sendNext(this.batch),
					() -> sendMore(this.batch));
			Matcher matcher = WHERE.matcher(line);
			assertThat(matcher.find()).as(line).isTrue();
			String orderId = matcher.group(1);
			if (point == FaultPoints.Point.DURING_CALL) {
				assertThat(stub().awaitHeld(orderId, Duration.ofSeconds(30)))
					.as("%s: the provider holds the charge of %s", child, orderId)
					.isTrue();
			}
			// At every point the key is claimed and not completed: only the lease protects it now.
			assertThat(status(orderId)).as("%s at %s: %s is in progress", child, label(point), orderId)
				.isEqualTo(PROCESSING);
			if (unknown) {
				stub().markUnknown(orderId);
			}
			Kill kill = new Kill(point, orderId, child.name(), unknown, stub().charges(orderId));
			assertThat(child.kill()).as("exit status of SIGKILLed %s", child).isEqualTo(ChildConsumer.SIGKILL_EXIT);
			stub().releaseHeld();
			this.kills.add(kill);
			restart();
			awaitSettled(kill);
			return kill;
		}

		/**
		 * Waits until the killed order's claim is settled (completed or parked) by the next
		 * incarnation, so that the next kill never lands on a reconciler's decision, then checks it:
		 * with a reconciler, its verdict is journaled and only a kill before the call is charged
		 * again (by the retried run); without one, the run that took over charged once more. A
		 * second charge where none is due ends the wait at once.
		 */
		private void awaitSettled(Kill kill) {
			long killsOfOrder = this.kills.stream().filter((k) -> k.orderId().equals(kill.orderId())).count();
			int chargesDue = kill.chargesAtKill() + ((!this.reconciler || !kill.inWindow()) ? 1 : 0);
			try {
				await().atMost(SETTLE_TIMEOUT)
					.pollInterval(Duration.ofMillis(200))
					.until(() -> stub().charges(kill.orderId()) > chargesDue
							|| (isSettled(status(kill.orderId())) && stub().charges(kill.orderId()) >= chargesDue
									&& (!this.reconciler || settledVerdicts(kill.orderId()) >= killsOfOrder)));
			}
			catch (ConditionTimeoutException ex) {
				// Reported below, with the state that was reached.
			}
			String status = status(kill.orderId());
			int charges = stub().charges(kill.orderId());
			long verdicts = settledVerdicts(kill.orderId());
			String state = String.format("%s killed at %s on %s: status %s, charges %d (due %d), settled verdicts %d",
					kill.child(), label(kill.point()), kill.orderId(), status, charges, chargesDue, verdicts);
			note("settled: %s", state);
			assertThat(charges).as("charges after the kill; %s", state).isEqualTo(chargesDue);
			assertThat(isSettled(status)).as("settled within %s; %s", SETTLE_TIMEOUT, state).isTrue();
			if (this.reconciler) {
				assertThat(verdicts).as("verdicts applied; %s", state).isEqualTo(killsOfOrder);
			}
		}

		private boolean isSettled(String status) {
			return COMPLETED.equals(status) || PARKED.equals(status);
		}

		private void restart() {
			String name = this.prefix + (this.children.size() + 1);
			Map<String, String> properties = new LinkedHashMap<>(
					cluster().consumerProperties(this.topic, this.group, "fault-" + cluster().runId() + "-" + name));
			properties.put("fault.charges-url", stub().baseUrl());
			properties.put("fault.reconciler", String.valueOf(this.reconciler));
			properties.put("fault.lease", LEASE);
			this.current = ChildConsumer.start(FaultLeasedConsumerApplication.class, name, cluster().directory(),
					"manual_immediate", properties);
			this.children.add(this.current);
		}

		private ChildConsumer ready() {
			if (this.current == null || !this.current.isAlive()) {
				restart();
			}
			this.current.awaitAssigned(READY_TIMEOUT);
			return this.current;
		}

		private void sendNext(int count) {
			int end = Math.min(this.stream.size(), this.sent + count);
			if (end > this.sent) {
				cluster().sendAndFlush(this.stream.subList(this.sent, end));
				this.sent = end;
			}
		}

		/** When the planned stream is exhausted before a kill point was reached: more orders. */
		private void sendMore(int count) {
			if (this.sent < this.stream.size()) {
				sendNext(count);
				return;
			}
			for (int i = 0; i < count; i++) {
				this.stream.add(newOrder());
			}
			sendNext(count);
		}

		// Verification

		private List<Journal> journals() {
			return this.children.stream().map((child) -> Journal.read(child.name(), child.journal())).toList();
		}

		/** This run's verdicts: the reconciler scans the whole table, other runs' leftovers included. */
		private List<Journal.Verdict> verdicts(Journal journal) {
			return journal.verdicts.stream().filter((verdict) -> verdict.namespace().startsWith(this.group)).toList();
		}

		private long settledVerdicts(String orderId) {
			return journals().stream()
				.flatMap((journal) -> verdicts(journal).stream())
				.filter((verdict) -> verdict.settled() && verdict.key().equals(orderId))
				.count();
		}

		private String status(String orderId) {
			List<String> statuses = cluster().database()
				.jdbc()
				.queryForList("SELECT status FROM idempotency_record WHERE namespace LIKE ? AND idempotency_key = ?",
						String.class, this.group + "%", orderId);
			return statuses.isEmpty() ? null : statuses.get(0);
		}

		private int countStatus(String status) {
			Integer count = cluster().database()
				.jdbc()
				.queryForObject("SELECT COUNT(*) FROM idempotency_record WHERE namespace LIKE ? AND status = ?",
						Integer.class, this.group + "%", status);
			return (count != null) ? count : 0;
		}

		private Set<String> keysWithStatus(String status) {
			return new TreeSet<>(cluster().database()
				.jdbc()
				.queryForList("SELECT idempotency_key FROM idempotency_record WHERE namespace LIKE ? AND status = ?",
						String.class, this.group + "%", status));
		}

		/**
		 * With a reconciler: every order charged exactly once (the unknown ones too: parked, never
		 * run again), the parked keys are exactly the unknown ones, and the verdicts follow the
		 * kill points (retry before the call, completed or manual in the call window).
		 */
		void verifyWithReconciler() {
			Checks checks = new Checks();
			Map<String, Integer> expected = new TreeMap<>();
			this.orders.forEach((order) -> expected.put(order, 1));
			Set<String> unknown = new TreeSet<>();
			this.kills.stream().filter(Kill::unknown).forEach((kill) -> unknown.add(kill.orderId()));
			long before = killsAt(FaultPoints.Point.BEFORE_CALL);
			long window = this.kills.size() - before;
			checks.common(expected);
			checks.expect(checks.parked.equals(unknown) && unknown.size() == 2,
					"parked keys (status PARKED) %s = the 2 orders the provider could not tell about %s", checks.parked,
					unknown);
			Map<String, Long> verdicts = new TreeMap<>();
			verdicts.put("retry", before);
			verdicts.put("completed", window - unknown.size());
			verdicts.put("manual", (long) unknown.size());
			verdicts.values().removeIf((count) -> count == 0);
			checks.expect(checks.verdicts.equals(verdicts),
					"settled verdicts %s = retry per kill before the call, completed per kill in the window the "
							+ "provider knew about, manual per unknown %s",
					checks.verdicts, verdicts);
			checks.expect(checks.unsettled == 0, "verdicts not applied or reconciler failures: %d", checks.unsettled);
			checks.expect(checks.processed == this.orders.size() - window,
					"processed %d = orders %d - kills in the window %d (completed or parked by the reconciler)",
					checks.processed, this.orders.size(), window);
			checks.expect(checks.duplicate + checks.parkedOutcomes == this.producerDuplicates + window,
					"duplicate %d + parked %d = producer duplicates %d + redeliveries of reconciled keys %d",
					checks.duplicate, checks.parkedOutcomes, this.producerDuplicates, window);
			checks.publish(unknown);
		}

		/**
		 * Without a reconciler: an order is charged once plus once per kill during or after the call
		 * (the next delivery takes over the ended lease and charges again); nothing is parked.
		 */
		void verifyWithoutReconciler() {
			Checks checks = new Checks();
			Map<String, Integer> expected = new TreeMap<>();
			this.orders.forEach((order) -> expected.put(order, 1));
			this.kills.stream().filter(Kill::inWindow).forEach((kill) -> expected.merge(kill.orderId(), 1, Integer::sum));
			checks.common(expected);
			long charged = checks.charges.values().stream().filter((count) -> count > 1).count();
			checks.expect(charged > 0, "orders charged more than once (the window kills): %d", charged);
			checks.expect(checks.parked.isEmpty(), "no reconciler, nothing parked: %s", checks.parked);
			checks.expect(checks.verdicts.isEmpty() && checks.unsettled == 0, "no reconciler, no verdicts: %s",
					checks.verdicts);
			checks.expect(checks.processed == this.orders.size(),
					"processed %d = orders %d (each ended by its takeover run)", checks.processed, this.orders.size());
			checks.expect(checks.duplicate + checks.parkedOutcomes == this.producerDuplicates,
					"duplicate %d + parked %d = producer duplicates %d", checks.duplicate, checks.parkedOutcomes,
					this.producerDuplicates);
			checks.publish(Set.of());
		}

		private long killsAt(FaultPoints.Point point) {
			return this.kills.stream().filter((kill) -> kill.point() == point).count();
		}

		/**
		 * What a run's end looks like, from the provider, the database, the broker and the journals;
		 * each expectation that does not hold is a problem, and the report says which.
		 */
		private final class Checks {

			final Map<String, Integer> charges = stub().chargesPerOrder(Run.this.prefix);

			final Map<String, String> wrongCharges = new TreeMap<>();

			final Set<String> missing = new TreeSet<>();

			final Map<Integer, Integer> histogram = new TreeMap<>();

			final Set<String> parked = keysWithStatus(PARKED);

			final int processing = countStatus(PROCESSING);

			final int completedRows = countStatus(COMPLETED);

			final Map<String, Long> verdicts = new TreeMap<>();

			final List<String> problems = new ArrayList<>();

			long unsettled;

			long received;

			long processed;

			long duplicate;

			long parkedOutcomes;

			long inProgress;

			long failed;

			long rejected;

			long conflict;

			long inFlight;

			long deadLetterLines;

			final int deadLetterRecords = cluster().readAll(Run.this.topic + ".DLT", 1).size();

			final boolean caughtUp = cluster().caughtUp(Run.this.group, Run.this.topic, PARTITIONS);

			Checks() {
				for (Journal journal : journals()) {
					this.received += journal.received.size();
					this.processed += journal.count("processed");
					this.duplicate += journal.count("duplicate");
					this.parkedOutcomes += journal.count("parked");
					this.inProgress += journal.count("in_progress");
					this.failed += journal.count("failed");
					this.rejected += journal.count("rejected");
					this.conflict += journal.count("conflict");
					this.inFlight += journal.inFlight();
					this.deadLetterLines += journal.deadLetters.size();
					for (Journal.Verdict verdict : verdicts(journal)) {
						if (verdict.settled()) {
							this.verdicts.merge(verdict.verdict(), 1L, Long::sum);
						}
						else {
							this.unsettled++;
						}
					}
				}
				this.charges.values().forEach((count) -> this.histogram.merge(count, 1, Integer::sum));
			}

			long outcomes() {
				return this.processed + this.duplicate + this.parkedOutcomes + this.inProgress + this.failed
						+ this.rejected + this.conflict;
			}

			void expect(boolean holds, String format, Object... args) {
				if (!holds) {
					this.problems.add(String.format(format, args));
				}
			}

			/** What holds with or without a reconciler; {@code expected}: charges per order. */
			void common(Map<String, Integer> expected) {
				expected.forEach((order, count) -> {
					int actual = this.charges.getOrDefault(order, 0);
					if (actual == 0) {
						this.missing.add(order);
					}
					if (actual != count) {
						this.wrongCharges.put(order, actual + " (expected " + count + ")");
					}
				});
				this.charges.keySet()
					.stream()
					.filter((order) -> !expected.containsKey(order))
					.forEach((order) -> this.wrongCharges.put(order, "charged, never sent"));
				expect(this.missing.isEmpty(), "orders never charged: %s", this.missing);
				expect(this.wrongCharges.isEmpty(), "charges not as expected: %s", this.wrongCharges);
				expect(this.processing == 0, "claims still in progress at the end: %d", this.processing);
				expect(this.completedRows + this.parked.size() == Run.this.orders.size(),
						"one settled dedup row per order: %d completed + %d parked != %d orders", this.completedRows,
						this.parked.size(), Run.this.orders.size());
				expect(this.caughtUp, "committed offsets did not reach the end of every partition");
				expect(this.deadLetterRecords == 0 && this.deadLetterLines == 0,
						"dead letters: %d records, %d journaled", this.deadLetterRecords, this.deadLetterLines);
				expect(this.failed + this.rejected + this.conflict == 0, "failed %d, rejected %d, conflict %d", this.failed,
						this.rejected, this.conflict);
				expect(this.inFlight == Run.this.kills.size(), "in flight at the kills: %d, kills %d", this.inFlight,
						Run.this.kills.size());
				expect(this.received == outcomes() + this.inFlight, "received %d != outcomes %d + in flight %d",
						this.received, outcomes(), this.inFlight);
				expect(Run.this.finalMetrics != null && Run.this.finalMetrics.contains("dead_lettered=0"),
						"the last incarnation's meters: %s", Run.this.finalMetrics);
			}

			/** Prints and writes the report, then fails the test if any expectation did not hold. */
			void publish(Set<String> unknown) {
				FaultReport report = new FaultReport("Leased side-effect run " + cluster().runId() + " "
						+ Run.this.prefix + " (" + (Run.this.reconciler ? "with" : "without") + " a reconciler)");
				report.row("result", this.problems.isEmpty() ? "**PASSED**" : "**FAILED**");
				report.row("duration", millisSince(Run.this.started) / 1000 + " s");
				report.row("seed", seed());
				report.row("orders", Run.this.orders.size() + " (" + Run.this.sent + " records sent, "
						+ Run.this.producerDuplicates + " producer duplicates)");
				report.row("lease", LEASE + (Run.this.reconciler ? ", reconciler interval 1s, hold 5s" : ""));
				report.row("kills (SIGKILL)", Run.this.kills.size() + ": before call "
						+ killsAt(FaultPoints.Point.BEFORE_CALL) + ", during call " + killsAt(FaultPoints.Point.DURING_CALL)
						+ ", after call " + killsAt(FaultPoints.Point.AFTER_CALL));
				report.row("killed orders", Run.this.kills.stream()
					.map((kill) -> kill.orderId() + "@" + label(kill.point()) + (kill.unknown() ? "(unknown)" : ""))
					.toList());
				report.row("consumer incarnations", Run.this.children.size());
				report.row("reconciled (settled verdicts)", "completed " + this.verdicts.getOrDefault("completed", 0L)
						+ ", retry " + this.verdicts.getOrDefault("retry", 0L) + ", manual "
						+ this.verdicts.getOrDefault("manual", 0L) + "; not applied " + this.unsettled
						+ "; provider status queries " + stub().queries(Run.this.prefix));
				report.row("provider said unknown", unknown);
				report.row("store: parked / completed / processing", this.parked + " / " + this.completedRows + " / "
						+ this.processing);
				report.row("outcomes processed / duplicate / parked / in_progress / failed / rejected / conflict",
						this.processed + " / " + this.duplicate + " / " + this.parkedOutcomes + " / " + this.inProgress
								+ " / " + this.failed + " / " + this.rejected + " / " + this.conflict);
				report.row("accounting", this.received + " received = " + outcomes() + " outcomes + " + this.inFlight
						+ " in flight at kills" + ((this.received == outcomes() + this.inFlight) ? " ✔" : " ✘"));
				report.row("charges per order (histogram: charges → orders)", this.histogram);
				report.row("orders charged more than once", this.charges.entrySet()
					.stream()
					.filter((entry) -> entry.getValue() > 1)
					.map((entry) -> entry.getKey() + "×" + entry.getValue())
					.toList());
				report.row("orders not charged", this.missing);
				report.row("committed offsets at the end of every partition (lag 0)", this.caughtUp);
				report.row("dead letters", this.deadLetterRecords + " records, " + this.deadLetterLines + " journaled");
				report.row("last incarnation's meters", Run.this.finalMetrics);
				if (!this.problems.isEmpty()) {
					report.row("problems", String.join("; ", this.problems));
				}
				report.steps(Run.this.log)
					.publish(cluster().directory(), "latest-leased-" + Run.this.prefix + "report.md");
				assertThat(this.problems).as("leased side-effect run %s (%s a reconciler), seed %d", Run.this.prefix,
						Run.this.reconciler ? "with" : "without", seed()).isEmpty();
			}

		}

		private void note(String format, Object... args) {
			String line = String.format(format, args);
			this.log.add(line);
			System.out.println("[leased " + this.prefix + "] " + line);
		}

	}

	private FaultCluster cluster() {
		return this.cluster;
	}

	private ChargeStub stub() {
		return this.stub;
	}

	private long seed() {
		return this.seed;
	}

	private static String label(FaultPoints.Point point) {
		return point.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	private static long millisSince(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
	}

	static {
		org.awaitility.Awaitility.setDefaultPollDelay(0, TimeUnit.MILLISECONDS);
	}

}
