package dev.idempotency.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One incarnation's {@link EventJournal}, read back by the parent.
 */
final class Journal {

	/** A record that reached the listener. */
	record Received(int partition, long offset, String orderId) {
	}

	/**
	 * A reconciler's decision on an unfinished leased claim; {@code verdict} is {@code -} if it threw.
	 * The reconciler scans the whole table, so the namespace tells a run's own claims from others'.
	 */
	record Verdict(String verdict, String key, boolean settled, String namespace) {
	}

	/** How an {@code @Idempotent} invocation ended. */
	record Outcome(String outcome, String key, String exception) {
	}

	final String child;

	final List<Received> received = new ArrayList<>();

	final List<Outcome> outcomes = new ArrayList<>();

	/** Kafka batch container: deliveries returned unsettled after a failed record of their poll. */
	final List<Received> returned = new ArrayList<>();

	final List<String> deadLetters = new ArrayList<>();

	/** Leased mode: a reconciler's decisions ({@code V} lines). */
	final List<Verdict> verdicts = new ArrayList<>();

	final List<String> assignments = new ArrayList<>();

	/** Redis Stream: entries claimed from idle consumers, per claim run. */
	final List<Integer> claims = new ArrayList<>();

	/** Fail-closed: the listener paused ({@code P} lines: the failure's class). */
	final List<String> pauses = new ArrayList<>();

	/** Fail-closed: the listener resumed ({@code U} lines: how long it was paused, in ms). */
	final List<Long> resumes = new ArrayList<>();

	boolean cleanShutdown;

	private Journal(String child) {
		this.child = child;
	}

	static Journal read(String child, Path file) {
		Journal journal = new Journal(child);
		if (!Files.exists(file)) {
			return journal;
		}
		List<String> lines;
		try {
			lines = Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		for (String line : lines) {
			String[] words = line.split(" ");
			switch (words[0]) {
				case "R" -> journal.received.add(new Received(Integer.parseInt(words[1]), Long.parseLong(words[2]),
						words[3]));
				case "O" -> journal.outcomes.add(new Outcome(words[1], words[2], words[3]));
				case "N" -> journal.returned.add(new Received(Integer.parseInt(words[1]), Long.parseLong(words[2]),
						words[3]));
				case "D" -> journal.deadLetters.add(words[3]);
				case "A" -> journal.assignments.add(words[1] + ":" + words[2]);
				case "C" -> journal.claims.add(Integer.parseInt(words[2]));
				case "P" -> journal.pauses.add(words[2]);
				case "U" -> journal.resumes.add(Long.parseLong(words[2]));
				case "V" -> journal.verdicts
					.add(new Verdict(words[1], words[2], Boolean.parseBoolean(words[3]), words[4]));
				case "S" -> journal.cleanShutdown = true;
				default -> {
					// A line cut by SIGKILL mid-write cannot happen (one write per line), but be lenient.
				}
			}
		}
		return journal;
	}

	long count(String outcome) {
		return this.outcomes.stream().filter((o) -> o.outcome().equals(outcome)).count();
	}

	/**
	 * Deliveries received without an outcome and not returned: in flight when the incarnation was
	 * killed.
	 */
	int inFlight() {
		return this.received.size() - this.outcomes.size() - this.returned.size();
	}

	/**
	 * The deliveries without an outcome that were not returned (in flight at the kill), matched by
	 * key: one per listener thread at most (a poll's records with transaction batching). Each is the
	 * last delivery of its order.
	 */
	List<Received> unfinished() {
		Map<String, Integer> open = new HashMap<>();
		this.received.forEach((delivery) -> open.merge(delivery.orderId(), 1, Integer::sum));
		this.outcomes.forEach((outcome) -> open.merge(outcome.key(), -1, Integer::sum));
		this.returned.forEach((delivery) -> open.merge(delivery.orderId(), -1, Integer::sum));
		List<Received> unfinished = new ArrayList<>();
		for (int i = this.received.size() - 1; i >= 0; i--) {
			Received delivery = this.received.get(i);
			if (open.getOrDefault(delivery.orderId(), 0) > 0) {
				unfinished.add(0, delivery);
				open.merge(delivery.orderId(), -1, Integer::sum);
			}
		}
		return unfinished;
	}

	/** Entries this incarnation claimed from idle consumers (Redis Stream). */
	long claimed() {
		return this.claims.stream().mapToLong(Integer::longValue).sum();
	}

	Map<String, Long> countsByOutcome() {
		Map<String, Long> counts = new TreeMap<>();
		for (Outcome outcome : this.outcomes) {
			counts.merge(outcome.outcome(), 1L, Long::sum);
		}
		return counts;
	}

}
