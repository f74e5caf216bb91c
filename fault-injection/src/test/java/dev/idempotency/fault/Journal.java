package dev.idempotency.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

	/** How an {@code @Idempotent} invocation ended. */
	record Outcome(String outcome, String key, String exception) {
	}

	final String child;

	final List<Received> received = new ArrayList<>();

	final List<Outcome> outcomes = new ArrayList<>();

	final List<String> deadLetters = new ArrayList<>();

	final List<String> assignments = new ArrayList<>();

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
				case "D" -> journal.deadLetters.add(words[3]);
				case "A" -> journal.assignments.add(words[1] + ":" + words[2]);
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

	/** Deliveries received without an outcome: in flight when the incarnation was killed. */
	int inFlight() {
		return this.received.size() - this.outcomes.size();
	}

	/** The delivery in flight at the kill (the last one received), if any. */
	Received lastReceived() {
		return this.received.isEmpty() ? null : this.received.get(this.received.size() - 1);
	}

	Map<String, Long> countsByOutcome() {
		Map<String, Long> counts = new TreeMap<>();
		for (Outcome outcome : this.outcomes) {
			counts.merge(outcome.outcome(), 1L, Long::sum);
		}
		return counts;
	}

}
