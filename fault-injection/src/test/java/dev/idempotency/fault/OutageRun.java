package dev.idempotency.fault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the outage scenarios of both transports share: the children of one scenario, its steps, the
 * poison it sent, the accounting of its journals, the pauses (journal lines and meters), and its
 * report, {@code <run directory>/report-outage-<name>.md}.
 */
final class OutageRun {

	private static final Pattern PAUSES = Pattern.compile("\\bpauses=(\\d+)");

	private final String name;

	private final FaultDatabase database;

	private final Path directory;

	private final List<ChildConsumer> children = new ArrayList<>();

	private final List<String> log = new ArrayList<>();

	private final long started = System.nanoTime();

	/** Names of the poison messages sent: the dead-letter destination must hold exactly these. */
	final Set<String> poison = new TreeSet<>();

	Accounting accounting;

	OutageRun(String name, FaultDatabase database, Path directory) {
		this.name = name;
		this.database = database;
		this.directory = directory;
	}

	FaultDatabase database() {
		return this.database;
	}

	ChildConsumer add(ChildConsumer child) {
		this.children.add(child);
		return child;
	}

	void note(String format, Object... args) {
		String line = String.format("%5.1f s  ", (System.nanoTime() - this.started) / 1e9) + String.format(format, args);
		this.log.add(line);
		System.out.println("[outage " + this.name + "] " + line);
	}

	/** Reads the journals and checks them (see {@link Accounting}). */
	void account(int listenerThreads) {
		this.accounting = new Accounting(this.children, this.database, listenerThreads);
	}

	long count(String outcome) {
		return this.accounting.count(outcome);
	}

	/** Failed invocations of {@code key} because of {@code exception}, over all incarnations. */
	long failedAttempts(String key, String exception) {
		return this.accounting.journals.values()
			.stream()
			.flatMap((journal) -> journal.outcomes.stream())
			.filter((o) -> o.outcome().equals("failed") && o.key().equals(key) && o.exception().equals(exception))
			.count();
	}

	/**
	 * Orders whose invocation ended {@code processed} with a failure: the business commit went
	 * through and completing the key afterwards failed (redis-atomic: the completing script could not
	 * reach Redis), so the key stayed claimed until its lease ended and the entry pending.
	 */
	Set<String> completionLost() {
		Set<String> keys = new TreeSet<>();
		this.accounting.journals.values()
			.stream()
			.flatMap((journal) -> journal.outcomes.stream())
			.filter((o) -> o.outcome().equals("processed") && !o.exception().equals("-"))
			.forEach((o) -> keys.add(o.key()));
		return keys;
	}

	/** Pauses journaled by every incarnation ({@code P} lines, one per outage per listener). */
	long journaledPauses() {
		return this.accounting.journals.values().stream().mapToLong((journal) -> journal.pauses.size()).sum();
	}

	/** {@code idempotency.listener.pauses}, summed over the cleanly stopped incarnations' METRICS lines. */
	long meteredPauses() {
		long pauses = 0;
		for (ChildConsumer child : this.children) {
			String metrics = child.findLine(0, (line) -> line.startsWith("METRICS"));
			Matcher matcher = (metrics != null) ? PAUSES.matcher(metrics) : null;
			if (matcher != null && matcher.find()) {
				pauses += Long.parseLong(matcher.group(1));
			}
		}
		return pauses;
	}

	/** The longest pause a journal reports ({@code U} lines), in ms. */
	long longestPause() {
		return this.accounting.journals.values()
			.stream()
			.flatMap((journal) -> journal.resumes.stream())
			.mapToLong(Long::longValue)
			.max()
			.orElse(0);
	}

	/** Writes the scenario's report (printed, and to the run's directory). */
	void report(Duration duration, OrderBook book, OrderBook.LedgerCheck ledger, boolean twiceAllowed, Outage outage,
			Duration outageLength, Map<String, Integer> deadLetters, boolean caughtUp) {
		FaultReport report = new FaultReport("Outage scenario '" + this.name + "', run " + this.database.runId());
		boolean credited = ledger.exactlyOnce() || (twiceAllowed && ledger.missing().isEmpty()
				&& ledger.unexpected().isEmpty() && ledger.doubles().values().stream().allMatch((count) -> count == 2));
		boolean passed = credited && deadLetters.keySet().equals(this.poison) && caughtUp
				&& this.accounting.problems.isEmpty() && this.accounting.closes();
		report.row("result", passed ? "**PASSED**" : "**FAILED**")
			.row("duration", duration.toSeconds() + " s")
			.row("unique orders / producer duplicates", book.uniqueOrders() + " / " + book.duplicates())
			.row("outage", outage.describe(outageLength))
			.row("pauses: journaled / idempotency.listener.pauses (clean stops) / longest (ms)",
					journaledPauses() + " / " + meteredPauses() + " / " + longestPause())
			.row("consumer incarnations", this.children.size())
			.row("processed / duplicate / failed / rejected / in_progress",
					count("processed") + " / " + count("duplicate") + " / " + count("failed") + " / "
							+ count("rejected") + " / " + count("in_progress"))
			.row("accounting", this.accounting.equation())
			.row("failed, yet committed (the commit's reply lost in the cut)", this.accounting.committedDespiteFailure)
			.row("processed, completing the key failed (redis-atomic: the script lost with Redis)", completionLost())
			.row("ledger", ledger.exactlyOnce() ? "every order exactly once" : ledger.toString())
			.row("dead letters", deadLetters.isEmpty() ? "0" : deadLetters.toString())
			.row("failed attempts of the poison (business exception) before its dead letter",
					this.poison.stream()
						.map((key) -> key + ": " + failedAttempts(key, "IllegalArgumentException"))
						.toList())
			.row("everything acknowledged at the end", caughtUp);
		if (!this.accounting.problems.isEmpty()) {
			report.row("problems", String.join("; ", this.accounting.problems));
		}
		report.steps(this.log).publish(this.directory, "latest-outage-" + this.name + ".md");
	}

}
