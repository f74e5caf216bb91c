package dev.idempotency.benchmarks.filters;

import java.util.ArrayList;
import java.util.List;

import dev.idempotency.benchmarks.support.ShippedSchema;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The business tables of the filter suite on PostgreSQL: 1,000 accounts and a ledger keyed by the
 * variant's namespace and the message's numeric id, without a unique key (a double application shows
 * up as a second row), indexed so that a round's ids can be counted quickly; and one dedup table per
 * variant, from the starter's shipped schema, so that a variant's rebuild reads only its own keys.
 */
final class FilterLedger {

	static final int ACCOUNTS = 1000;

	private static final String CREDIT = "UPDATE bench_filter_account SET balance = balance + ? WHERE id = ?";

	private static final String LEDGER = "INSERT INTO bench_filter_ledger (namespace, msg_id, account_id, amount)"
			+ " VALUES (?, ?, ?, ?)";

	private static final String[] DDL = { """
			CREATE TABLE IF NOT EXISTS bench_filter_account (
				id INT PRIMARY KEY,
				balance BIGINT NOT NULL
			)""", """
			CREATE TABLE IF NOT EXISTS bench_filter_ledger (
				id BIGSERIAL PRIMARY KEY,
				namespace VARCHAR(200) NOT NULL,
				msg_id BIGINT NOT NULL,
				account_id INT NOT NULL,
				amount BIGINT NOT NULL
			)""", "CREATE INDEX IF NOT EXISTS bench_filter_ledger_msg_idx ON bench_filter_ledger (namespace, msg_id)" };

	private FilterLedger() {
	}

	/** Creates the tables if needed and empties them (not timed). */
	static void createAndReset(JdbcTemplate jdbc) {
		for (String ddl : DDL) {
			jdbc.execute(ddl);
		}
		jdbc.execute("TRUNCATE bench_filter_ledger");
		jdbc.execute("TRUNCATE bench_filter_account");
		jdbc.update("INSERT INTO bench_filter_account (id, balance) SELECT g, 0 FROM generate_series(0, ?) g",
				ACCOUNTS - 1);
	}

	/** Creates the dedup table of one variant, empty. */
	static void createDedupTable(JdbcTemplate jdbc, String table) {
		ShippedSchema.create(jdbc, "dev/idempotency/store/jdbc/schema-postgresql.sql", "idempotency_record", table);
		jdbc.execute("TRUNCATE " + table);
	}

	static void dropDedupTable(JdbcTemplate jdbc, String table) {
		jdbc.execute("DROP TABLE IF EXISTS " + table);
	}

	/** The business transaction's writes: credit the account, add a ledger row. */
	static void apply(JdbcTemplate jdbc, String namespace, long id) {
		int account = account(id);
		if (jdbc.update(CREDIT, amount(id), account) != 1) {
			throw new IllegalStateException("No account " + account);
		}
		jdbc.update(LEDGER, namespace, id, account, amount(id));
	}

	static int account(long id) {
		return (int) (id % ACCOUNTS);
	}

	static long amount(long id) {
		return id % 97 + 1;
	}

	/**
	 * Checks that every id in {@code [from, to)} of the namespace was applied exactly once.
	 * @return the problems found, empty if none
	 */
	static List<String> appliedOnce(JdbcTemplate jdbc, String namespace, long from, long to) {
		List<String> problems = new ArrayList<>();
		long[] counts = jdbc.queryForObject(
				"SELECT COUNT(*), COUNT(DISTINCT msg_id) FROM bench_filter_ledger WHERE namespace = ? AND msg_id >= ?"
						+ " AND msg_id < ?",
				(rs, row) -> new long[] { rs.getLong(1), rs.getLong(2) }, namespace, from, to);
		long expected = to - from;
		if (counts[1] != expected) {
			problems.add((expected - counts[1]) + " of " + expected + " ids [" + from + ", " + to + ") never applied");
		}
		if (counts[0] != counts[1]) {
			problems.add((counts[0] - counts[1]) + " extra applications of ids [" + from + ", " + to
					+ ") (applied more than once)");
		}
		return problems;
	}

}
