package dev.idempotency.fault;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The accounting of a run, from the journals of all its incarnations and the ledger, whatever the
 * transport. It checks, per incarnation:
 * <ul>
 * <li>a killed one has at most one delivery in flight per listener thread; the suite finds out
 * from the ledger whether each one committed before the kill;</li>
 * <li>a cleanly stopped one has none in flight, wrote its {@code S} line, and its
 * {@code idempotency.invocations} timer (its {@code METRICS} line) agrees with its journal;</li>
 * <li>its ledger rows equal its {@code processed} outcomes plus its in-flight deliveries that
 * committed, plus its {@code failed} invocations that committed all the same (a commit whose reply
 * was lost with the connection: outcome unknown to the application, and the redelivery a
 * duplicate).</li>
 * </ul>
 * Totals: {@code received = processed + duplicate + failed + rejected + in_progress + returned + in flight}
 * (returned: a Kafka batch container's deliveries after a failed record of their poll, delivered
 * again),
 * and {@code processed + in flight that committed} is the number of unique orders.
 */
final class Accounting {

	final Map<String, Journal> journals = new LinkedHashMap<>();

	final Map<String, Long> outcomes = new TreeMap<>();

	final Set<String> generations = new TreeSet<>();

	final List<String> problems = new ArrayList<>();

	/** The orders of the in-flight deliveries that committed before their kill. */
	final Set<String> committedInFlight = new TreeSet<>();

	/** The same, with the incarnations in which each committed. */
	final Map<String, Set<String>> committedInFlightIn = new TreeMap<>();

	/** Orders in flight (received, no outcome line) when an incarnation was killed, and where. */
	private final Map<String, Set<String>> inFlightAtKillIn = new TreeMap<>();

	long received;

	long inFlight;

	/** Deliveries returned unsettled after a failed record of their poll (Kafka batch containers). */
	long returned;

	long inFlightCommitted;

	long deadLettered;

	/** Invocations that ended {@code failed} although their commit went through (reply lost). */
	long committedDespiteFailure;

	long claimed;

	/**
	 * Reads and checks the journals.
	 * @param children every incarnation of the run
	 * @param database the ledger
	 * @param listenerThreads how many deliveries of one incarnation can be inside the listener at once
	 * (Kafka: the consumer thread's record, or with transaction batching its poll; Redis Stream: the
	 * consumer thread and the claiming recovery task)
	 */
	Accounting(List<ChildConsumer> children, FaultDatabase database, int listenerThreads) {
		Map<String, Integer> creditsPerChild = database.creditsPerChild();
		for (ChildConsumer child : children) {
			Journal journal = Journal.read(child.name(), child.journal());
			this.journals.put(child.name(), journal);
			this.received += journal.received.size();
			this.returned += journal.returned.size();
			journal.countsByOutcome().forEach((outcome, count) -> this.outcomes.merge(outcome, count, Long::sum));
			this.deadLettered += journal.deadLetters.size();
			this.claimed += journal.claimed();
			journal.assignments.forEach((assignment) -> this.generations.add(assignment.split(":")[0]));
			int open = journal.inFlight();
			long committedHere = 0;
			if (child.wasKilled()) {
				List<Journal.Received> unfinished = journal.unfinished();
				if (open < 0 || open > listenerThreads || unfinished.size() != open) {
					this.problems.add(child.name() + " (killed) has " + open + " deliveries without an outcome "
							+ unfinished);
				}
				for (Journal.Received delivery : unfinished) {
					this.inFlightAtKillIn.computeIfAbsent(delivery.orderId(), (order) -> new TreeSet<>())
						.add(child.name());
					if (database.credited(child.name(), delivery)) {
						this.committedInFlight.add(delivery.orderId());
						this.committedInFlightIn.computeIfAbsent(delivery.orderId(), (order) -> new TreeSet<>())
							.add(child.name());
						committedHere++;
					}
				}
				this.inFlight += Math.max(open, 0);
			}
			else {
				if (open != 0 || !journal.cleanShutdown) {
					this.problems.add(child.name() + " (stopped cleanly, exit " + child.exitStatus() + ") has " + open
							+ " deliveries without an outcome, clean=" + journal.cleanShutdown);
				}
				String metrics = child.findLine(0, (line) -> line.startsWith("METRICS"));
				for (String outcome : List.of("processed", "duplicate", "failed", "rejected")) {
					String expected = outcome + "=" + journal.count(outcome);
					if (metrics == null || !(" " + metrics + " ").contains(" " + expected + " ")) {
						this.problems.add(child.name() + ": idempotency.invocations " + metrics
								+ " disagrees with its journal (" + expected + ")");
					}
				}
			}
			this.inFlightCommitted += committedHere;
			long processedHere = journal.count("processed");
			long failedButCommitted = committedDespiteFailure(journal, database);
			this.committedDespiteFailure += failedButCommitted;
			int rowsHere = creditsPerChild.getOrDefault(child.name(), 0);
			if (rowsHere != processedHere + committedHere + failedButCommitted) {
				this.problems.add(child.name() + " wrote " + rowsHere + " ledger rows but reported " + processedHere
						+ " processed (+" + committedHere + " committed in flight, +" + failedButCommitted
						+ " failed but committed)");
			}
		}
	}

	/**
	 * Orders this incarnation reported {@code failed} and never {@code processed}, yet credited: the
	 * commit reached the database and its reply was lost (a connection cut at that moment).
	 */
	private static long committedDespiteFailure(Journal journal, FaultDatabase database) {
		Set<String> processed = new TreeSet<>();
		journal.outcomes.stream()
			.filter((o) -> o.outcome().equals("processed"))
			.forEach((o) -> processed.add(o.key()));
		return journal.outcomes.stream()
			.filter((o) -> o.outcome().equals("failed") && !processed.contains(o.key()))
			.map(Journal.Outcome::key)
			.distinct()
			.filter((key) -> database.creditedBy(key).contains(journal.child))
			.count();
	}

	long count(String outcome) {
		return this.outcomes.getOrDefault(outcome, 0L);
	}

	/** processed + duplicate + failed + rejected + in_progress + returned + in flight at a kill. */
	long accounted() {
		return count("processed") + count("duplicate") + count("failed") + count("rejected") + count("in_progress")
				+ this.returned + this.inFlight;
	}

	boolean closes() {
		return this.received == accounted();
	}

	/** Whether some incarnation other than {@code child} found {@code key} a duplicate. */
	boolean duplicateElsewhere(String key, String child) {
		return outcomeElsewhere(key, child, "duplicate");
	}

	/** Whether an invocation for {@code key} in an incarnation other than {@code child} ended so. */
	/**
	 * Whether a delivery of {@code order} committed in another incarnation than {@code child} and
	 * was in flight when that one was killed (so its outcome line is missing).
	 */
	boolean committedInFlightElsewhere(String order, String child) {
		return this.committedInFlightIn.getOrDefault(order, Set.of()).stream().anyMatch((other) -> !other.equals(child));
	}

	/**
	 * Whether another incarnation received the order and was killed before its outcome line: the
	 * redelivery happened, and its outcome went with the kill (the suites' ledger and end-of-run
	 * checks still say whether it was credited once and acknowledged).
	 */
	boolean inFlightAtKillElsewhere(String order, String child) {
		return this.inFlightAtKillIn.getOrDefault(order, Set.of()).stream().anyMatch((other) -> !other.equals(child));
	}

	boolean outcomeElsewhere(String key, String child, String outcome) {
		return this.journals.values()
			.stream()
			.filter((journal) -> !journal.child.equals(child))
			.anyMatch((journal) -> journal.outcomes.stream()
				.anyMatch((o) -> o.outcome().equals(outcome) && o.key().equals(key)));
	}

	/** The accounting line of a report. */
	String equation() {
		return this.received + " = " + count("processed") + " + " + count("duplicate") + " + " + count("failed") + " + "
				+ count("rejected") + " + " + count("in_progress") + " + " + ((this.returned > 0) ? this.returned + " + " : "")
				+ this.inFlight + (closes() ? " ✔" : " ✘");
	}

}
