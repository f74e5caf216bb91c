package dev.idempotency.benchmarks.support;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.report.RoundsTable;
import org.jspecify.annotations.Nullable;

/**
 * The frame of an end-to-end harness's {@code main}: its common options ({@code --db},
 * {@code --messages}, {@code --rounds}, {@code --warmup}, {@code --concurrency}, {@code --variants},
 * each with the suite's default), the load and time at the start, the rows and round lines measured
 * so far ({@link InterleavedRounds}), and the common parts of its Markdown report.
 */
public final class Harness {

	private final String name;

	private final String[] args;

	private final Options options;

	private final int messages;

	private final int rounds;

	private final int warmup;

	private final List<String> variants;

	private final String loadAtStart = Machine.loadAverage();

	private final Instant started = Instant.now();

	private final List<InterleavedRounds.Row> rows = new ArrayList<>();

	private final List<String> verdicts = new ArrayList<>();

	private Harness(String name, String[] args, int messages, int rounds, int warmup, String variants) {
		this.name = name;
		this.args = args.clone();
		this.options = Options.parse(args);
		this.messages = this.options.integer("messages", messages);
		this.rounds = this.options.integer("rounds", rounds);
		this.warmup = this.options.integer("warmup", warmup);
		this.variants = this.options.list("variants", variants);
	}

	/**
	 * Reads the common options of the harness {@code name} (its class's simple name, for the report's
	 * command line when {@code bench.command} is not set), with these defaults.
	 */
	public static Harness start(String name, String[] args, int messages, int rounds, int warmup,
			String variants) {
		return new Harness(name, args, messages, rounds, warmup, variants);
	}

	/** All the options, for the suite's own. */
	public Options options() {
		return this.options;
	}

	/** {@code --db}: one database, PostgreSQL by default. */
	public Database database() {
		return Database.of(this.options.text("db", "postgresql"));
	}

	public int messages() {
		return this.messages;
	}

	public int rounds() {
		return this.rounds;
	}

	public int warmup() {
		return this.warmup;
	}

	public List<String> variants() {
		return this.variants;
	}

	/** {@code --concurrency}: the consumers per variant, one row each, {@code 1,4} by default. */
	public List<Integer> concurrencies() {
		return this.options.integers("concurrency", "1,4");
	}

	/**
	 * Creates every variant at {@code concurrency}, runs their interleaved rounds, closes them and keeps
	 * their rows and round lines for the report.
	 */
	public <V extends AutoCloseable> void measure(Function<String, V> create, Function<V, String> name,
			int concurrency, InterleavedRounds.Round<V> round) throws Exception {
		this.rows.addAll(InterleavedRounds.measure(this.variants, create, name, concurrency, this.warmup, this.rounds,
				round, this.verdicts));
	}

	/**
	 * {@linkplain #measure Measures} the variants at each {@linkplain #concurrencies() concurrency}, one
	 * after the other.
	 * @param create the variant of a name at a concurrency
	 */
	public <V extends AutoCloseable> void measureAll(BiFunction<String, Integer, V> create, Function<V, String> name,
			InterleavedRounds.Round<V> round) throws Exception {
		for (int concurrency : concurrencies()) {
			measure((variant) -> create.apply(variant, concurrency), name, concurrency, round);
		}
	}

	/** The rows measured since the last {@link #table}. */
	public List<InterleavedRounds.Row> rows() {
		return List.copyOf(this.rows);
	}

	/**
	 * The report's first paragraph: when the run finished and started, then {@code on <database>: <n>
	 * <unit> per round (~10% duplicates), <w> warm-up + <r> measured rounds per row, variants
	 * interleaved; <setup>} ({@code setup} ends with its full stop).
	 * @param database the database of the whole run, or {@code null} when each section names its own
	 */
	public String summary(@Nullable Database database, String unit, String setup) {
		return HarnessReport.finished(this.started) + ((database != null) ? " on " + database.productName() : "")
				+ ": " + this.messages + " " + unit + " per round (~10% duplicates), " + this.warmup + " warm-up + "
				+ this.rounds + " measured rounds per row, variants interleaved; " + setup + "\n\n";
	}

	/** The command and machine lines, with the load at the start and now and the version of {@code database}. */
	public String commandAndMachine(Database database) {
		return HarnessReport.commandAndMachine(this.name + " " + String.join(" ", this.args), this.loadAtStart,
				database);
	}

	/**
	 * The results table of the rows measured so far ({@link RoundsTable}) with every measured round's
	 * line; the next table starts afresh.
	 */
	public String table(Map<String, Function<String, String>> ratios) {
		String table = RoundsTable.of(this.rows, ratios, this.verdicts);
		this.rows.clear();
		this.verdicts.clear();
		return table;
	}

}
