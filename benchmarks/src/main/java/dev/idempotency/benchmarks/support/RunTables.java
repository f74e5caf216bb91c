package dev.idempotency.benchmarks.support;

import java.util.List;

import com.zaxxer.hikari.HikariDataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The {@link LedgerTables} of one harness run, through a small pool of the harness's own on the
 * database under test: created when the run starts, reset before each round (not timed) and checked
 * after it.
 */
public final class RunTables implements AutoCloseable {

	private final LedgerTables tables;

	private final HikariDataSource pool;

	private final JdbcTemplate jdbc;

	/** Creates the tables on {@code database} unless present. */
	public RunTables(Database database) {
		this.tables = LedgerTables.of(database);
		this.pool = database.newDataSource(2);
		this.jdbc = new JdbcTemplate(this.pool);
		this.tables.create(this.jdbc);
	}

	public Database database() {
		return this.tables.database();
	}

	public LedgerTables tables() {
		return this.tables;
	}

	/** Empties the ledger and the dedup table and zeroes the balances. */
	public void reset() {
		this.tables.reset(this.jdbc);
	}

	/**
	 * What is wrong with the end state of a variant that deduplicates, given the messages it was sent:
	 * ledger rows other than the distinct keys, keys applied twice, wrong balances.
	 * @return the problems, empty if none; modifiable
	 */
	public List<String> problems(MessageStream sent) {
		return problems(sent.expected(LedgerTables.ACCOUNTS, false), true);
	}

	/** What is wrong with the end state against {@code expected} ({@link LedgerTables#problems}). */
	public List<String> problems(MessageStream.Expected expected, boolean dedups) {
		return LedgerTables.problems(this.jdbc, expected, dedups);
	}

	public long ledgerRows() {
		return LedgerTables.ledgerRows(this.jdbc);
	}

	@Override
	public void close() {
		this.pool.close();
	}

}
