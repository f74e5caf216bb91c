package dev.idempotency.benchmarks.outbox;

import java.util.Locale;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.ShippedSchema;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The outbox suite's tables on one database ({@link #of(Database)}): the outbox table from the
 * starter's shipped schema of that database under another name, the accounts and the ledger; and the
 * rows already sent that a throughput round may start with ({@link #insertSent(JdbcTemplate, int)}).
 */
final class OutboxTables {

	/** The message id prefix of the rows already sent; the published ids are UUIDs, never this. */
	static final String SENT_PREFIX = "sent-";

	/** The rows already sent are spread over this many seconds before now: the purge keeps a day. */
	private static final int SENT_SPAN_SECONDS = 86_400;

	private final Database database;

	private OutboxTables(Database database) {
		this.database = database;
	}

	static OutboxTables of(Database database) {
		return new OutboxTables(database);
	}

	/** Creates the tables unless present (the shipped script adds its newest indexes) and seeds the accounts. */
	void create(JdbcTemplate jdbc) {
		ShippedSchema.create(jdbc, "dev/idempotency/outbox/schema-" + this.database.id() + ".sql",
				"idempotency_outbox", OutboxEnvironment.TABLE);
		LedgerTables.createAccountsAndLedger(jdbc, this.database, "bench_outbox", OutboxEnvironment.ACCOUNTS);
	}

	/**
	 * Inserts {@code rows} rows already {@code SENT} in one {@code INSERT ... SELECT} (message ids
	 * {@code sent-1} to {@code sent-<rows>}, payloads like the published ones, timestamps spread over
	 * the last day in id order, oldest first), then refreshes the table's statistics: the steady state
	 * of a table in which everything was sent and nothing purged yet. Nothing when {@code rows} is 0.
	 */
	void insertSent(JdbcTemplate jdbc, int rows) {
		if (rows <= 0) {
			return;
		}
		String secondsAgo = String.format(Locale.ROOT, "(%d + 1 - seq) * %.6f", rows,
				(double) SENT_SPAN_SECONDS / rows);
		jdbc.update("INSERT INTO " + OutboxEnvironment.TABLE + " (message_id, destination, message_key, payload,"
				+ " status, attempts, created_at, next_attempt_at, sent_at)"
				+ " SELECT CONCAT('" + SENT_PREFIX + "', seq), 'kafka:bench-outbox-sent', CONCAT('acct-', seq % "
				+ OutboxEnvironment.ACCOUNTS + "), CONCAT('{\"orderId\":\"order-', seq, '\",\"account\":', seq % "
				+ OutboxEnvironment.ACCOUNTS + ", ',\"amount\":', 1 + seq % 97,"
				+ " ',\"currency\":\"EUR\",\"note\":\"benchmark payload\"}'), 'SENT', 0, sent_time, sent_time, sent_time"
				+ " FROM (SELECT seq, " + ago(secondsAgo) + " AS sent_time FROM " + this.database.numbers(1, rows) + ") sent");
		jdbc.execute(this.database.analyze(OutboxEnvironment.TABLE));
	}

	/**
	 * The instant {@code seconds} (an SQL expression) before now, in the outbox table's timestamp
	 * columns as the starter writes them: {@code TIMESTAMP WITH TIME ZONE} on PostgreSQL, UTC
	 * wall-clock time on MariaDB ({@code DATETIME(6)}).
	 */
	private String ago(String seconds) {
		return switch (this.database) {
			case POSTGRESQL -> "now() - " + seconds + " * INTERVAL '1 second'";
			case MARIADB -> "UTC_TIMESTAMP(6) - INTERVAL (" + seconds + ") SECOND";
		};
	}

}
