package dev.idempotency.benchmarks.support;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;

/**
 * The business tables of the end-to-end harnesses (the stream and Kafka suites) on one database
 * ({@link #of(Database)}): 1,000 accounts, a ledger without a unique key (so a double application
 * shows up as a second row), and a dedup table created from the starter's shipped schema under another
 * name, with the hand-written insert-or-ignore of that database and the bind value of its timestamps.
 */
public final class LedgerTables {

	public static final int ACCOUNTS = 1000;

	public static final String DEDUP_TABLE = "bench_stream_record";

	/** The business credit: parameters amount, account. */
	public static final String CREDIT = "UPDATE bench_stream_account SET balance = balance + ? WHERE id = ?";

	/** The business ledger row: parameters key, account, amount. */
	public static final String LEDGER = "INSERT INTO bench_stream_ledger (msg_key, account_id, amount) VALUES (?, ?, ?)";

	private static final String DEDUP_COLUMNS = DEDUP_TABLE
			+ " (namespace, idempotency_key, status, created_at, expires_at) VALUES ";

	private static final String DEDUP_ROW = "(?, ?, ?, ?, ?)";

	private final Database database;

	private LedgerTables(Database database) {
		this.database = database;
	}

	public static LedgerTables of(Database database) {
		return new LedgerTables(database);
	}

	public Database database() {
		return this.database;
	}

	/**
	 * The hand-written dedup of the baselines, variant 2's statement: insert the key unless present.
	 * Parameters: namespace, key, status, created-at, expires-at (see {@link #timestamp(Instant)}).
	 */
	public String insertOrIgnore() {
		return switch (this.database) {
			case POSTGRESQL -> "INSERT INTO " + DEDUP_COLUMNS + DEDUP_ROW
					+ " ON CONFLICT (namespace, idempotency_key) DO NOTHING";
			case MARIADB -> "INSERT IGNORE INTO " + DEDUP_COLUMNS + DEDUP_ROW;
		};
	}

	/**
	 * The multi-row form of {@link #insertOrIgnore()} for {@code rows} keys, returning the keys it
	 * inserted (MariaDB 10.5 and later: {@code INSERT IGNORE ... RETURNING}).
	 */
	public String insertOrIgnoreReturningKeys(int rows) {
		StringBuilder values = new StringBuilder(DEDUP_ROW);
		for (int i = 1; i < rows; i++) {
			values.append(", ").append(DEDUP_ROW);
		}
		return switch (this.database) {
			case POSTGRESQL -> "INSERT INTO " + DEDUP_COLUMNS + values
					+ " ON CONFLICT (namespace, idempotency_key) DO NOTHING RETURNING idempotency_key";
			case MARIADB -> "INSERT IGNORE INTO " + DEDUP_COLUMNS + values + " RETURNING idempotency_key";
		};
	}

	/**
	 * An instant bound to the dedup table's timestamp columns as the starter binds it: with its UTC
	 * offset on PostgreSQL ({@code TIMESTAMP WITH TIME ZONE}), as UTC wall-clock time on MariaDB
	 * ({@code DATETIME}, no zone).
	 */
	public Object timestamp(Instant instant) {
		return switch (this.database) {
			case POSTGRESQL -> OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
			case MARIADB -> LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(), ZoneOffset.UTC);
		};
	}

	/** Creates the tables unless present and seeds the accounts unless they are all there. */
	public void create(JdbcTemplate jdbc) {
		createAccountsAndLedger(jdbc, this.database, "bench_stream", ACCOUNTS);
		ShippedSchema.create(jdbc, "dev/idempotency/store/jdbc/schema-" + this.database.id() + ".sql",
				"idempotency_record", DEDUP_TABLE);
	}

	/**
	 * Creates {@code <prefix>_account} (id, balance) and {@code <prefix>_ledger} (generated id,
	 * msg_key, account_id, amount) unless present, and seeds accounts 0 to {@code accounts - 1} with
	 * balance 0 unless they are all there: the business tables every end-to-end suite writes.
	 */
	public static void createAccountsAndLedger(JdbcTemplate jdbc, Database database, String prefix, int accounts) {
		jdbc.execute("""
				CREATE TABLE IF NOT EXISTS %s_account (
					id INT PRIMARY KEY,
					balance BIGINT NOT NULL
				)%s""".formatted(prefix, database.tableOptions()));
		jdbc.execute("""
				CREATE TABLE IF NOT EXISTS %s_ledger (
					id %s PRIMARY KEY,
					msg_key VARCHAR(200) NOT NULL,
					account_id INT NOT NULL,
					amount BIGINT NOT NULL
				)%s""".formatted(prefix, database.generatedKeyType(), database.tableOptions()));
		Integer present = jdbc.queryForObject("SELECT COUNT(*) FROM " + prefix + "_account", Integer.class);
		if (present == null || present != accounts) {
			jdbc.execute("TRUNCATE " + prefix + "_account");
			jdbc.update("INSERT INTO " + prefix + "_account (id, balance) SELECT seq, 0 FROM "
					+ database.numbers(0, accounts - 1));
		}
	}

	/**
	 * Empties the ledger and the dedup table, sets every balance to 0 and, on PostgreSQL, checkpoints
	 * (not timed).
	 */
	public void reset(JdbcTemplate jdbc) {
		jdbc.execute("TRUNCATE bench_stream_ledger");
		jdbc.execute("TRUNCATE " + DEDUP_TABLE);
		jdbc.update("UPDATE bench_stream_account SET balance = 0 WHERE balance <> 0");
		if (this.database == Database.POSTGRESQL) {
			// Every round starts right after a checkpoint, and none starts during it (an explicit checkpoint
			// restarts checkpoint_timeout): after a checkpoint, the first change to each page writes the
			// whole page to the WAL, which made the commits of an unlucky round up to three times slower.
			jdbc.execute("CHECKPOINT");
		}
	}

	/** The business transaction's writes: credit the account, add a ledger row. */
	public static void apply(JdbcTemplate jdbc, String key, int account, long amount) {
		if (jdbc.update(CREDIT, amount, account) != 1) {
			throw new IllegalStateException("No account " + account);
		}
		jdbc.update(LEDGER, key, account, amount);
	}

	/**
	 * Checks the end state against the expected one: ledger rows, keys applied twice (when the
	 * variant deduplicates) and every balance.
	 * @return the problems found, empty if none
	 */
	public static List<String> problems(JdbcTemplate jdbc, MessageStream.Expected expected, boolean dedups) {
		List<String> problems = new ArrayList<>();
		long ledger = ledgerRows(jdbc);
		if (ledger != expected.unique()) {
			problems.add("ledger rows " + ledger + " != expected " + expected.unique());
		}
		if (dedups) {
			long twice = jdbc.queryForObject(
					"SELECT COUNT(*) FROM (SELECT msg_key FROM bench_stream_ledger GROUP BY msg_key HAVING COUNT(*) > 1) t",
					Long.class);
			if (twice > 0) {
				problems.add(twice + " keys applied more than once");
			}
		}
		long[] balances = new long[ACCOUNTS];
		jdbc.query("SELECT id, balance FROM bench_stream_account",
				(RowCallbackHandler) (rs) -> balances[rs.getInt(1)] = rs.getLong(2));
		int wrong = 0;
		for (int i = 0; i < ACCOUNTS; i++) {
			if (balances[i] != expected.balances()[i]) {
				wrong++;
			}
		}
		if (wrong > 0) {
			problems.add(wrong + " account balances wrong");
		}
		return problems;
	}

	public static long ledgerRows(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM bench_stream_ledger", Long.class);
	}

}
