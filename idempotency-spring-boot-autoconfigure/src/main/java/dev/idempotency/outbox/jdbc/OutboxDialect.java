package dev.idempotency.outbox.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.support.jdbc.DatabasePlatform;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * How one database family claims due outbox rows for a relay and deletes sent rows in bounded
 * batches. Every claim runs inside the relay's short claim transaction; rows another relay is
 * claiming at that moment are skipped ({@code FOR UPDATE SKIP LOCKED}) rather than waited for.
 * Detection and timestamp columns are the {@link DatabasePlatform}'s, shared with the dedup store;
 * MySQL and MariaDB share one dialect, as the outbox's SQL is the same on both.
 *
 * @since 0.1.0
 */
public enum OutboxDialect {

	/**
	 * One statement: {@code UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING},
	 * planned without a sort; marks by an array of ids through the primary key.
	 */
	POSTGRESQL(DatabasePlatform.POSTGRESQL) {

		@Override
		List<OutboxMessage> claim(JdbcTemplate jdbc, String table, String dueRows, Object now, Object leaseUntil,
				int batchSize, RowMapper<OutboxMessage> mapper) {
			// Walk the pending rows' index in id order and stop after the batch. With statistics that say
			// few rows are pending (the steady state before a backlog, or a table not analyzed yet), the
			// planner would rather read every pending row and sort them, for every batch of the backlog.
			jdbc.execute("SET LOCAL enable_sort = off");
			String sql = "UPDATE " + table + " SET claimed_until = ? WHERE id IN (SELECT o.id FROM " + table + " o"
					+ " WHERE " + dueRows + " ORDER BY o.id LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING " + COLUMNS;
			return jdbc.query(sql, mapper, leaseUntil, now, now, batchSize);
		}

		/**
		 * One statement for any number of rows, the ids as one array, looked up in the primary key.
		 * With statistics that say few rows are pending, the planner would rather read every pending
		 * row through a partial index on {@code status} (hence {@code status || ''}, which none of
		 * them serves), and on a table not analyzed yet it chose a sequential scan: for every batch
		 * of a backlog.
		 */
		@Override
		int markSent(JdbcTemplate jdbc, String table, Object now, List<Long> ids) {
			jdbc.execute("SET LOCAL enable_seqscan = off");
			return jdbc.update("UPDATE " + table + " SET status = 'SENT', sent_at = ?, claimed_until = NULL, "
					+ "last_error = NULL WHERE id = ANY(CAST(? AS bigint[])) AND status || '' = 'PENDING'", now,
					ids.toArray(new Long[0]));
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object sentBefore, int batchSize) {
			return jdbc.update("DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table
					+ " WHERE status = 'SENT' AND sent_at <= ? LIMIT ? FOR UPDATE SKIP LOCKED)", sentBefore, batchSize);
		}

	},

	/**
	 * MySQL 8 and MariaDB 10.6 or later: {@code SELECT ... FOR UPDATE SKIP LOCKED} in the pending
	 * rows' index, then one {@code UPDATE} of the locked rows; purge with {@code DELETE ... LIMIT}.
	 */
	MYSQL(DatabasePlatform.MYSQL) {

		@Override
		List<OutboxMessage> claim(JdbcTemplate jdbc, String table, String dueRows, Object now, Object leaseUntil,
				int batchSize, RowMapper<OutboxMessage> mapper) {
			// Not the primary key for the order: the optimizer assumes due rows are spread evenly over
			// it, but they are the newest, and it walked every sent row not yet purged, for every claim.
			// The pending index (status, id) gives the order, and the scan stops after the batch.
			String select = "SELECT " + COLUMNS + " FROM " + table + " o IGNORE INDEX FOR ORDER BY (PRIMARY) WHERE "
					+ dueRows + " ORDER BY o.id LIMIT ? FOR UPDATE SKIP LOCKED";
			List<OutboxMessage> rows = jdbc.query(select, mapper, now, now, batchSize);
			if (rows.isEmpty()) {
				return rows;
			}
			// Every row is locked by this transaction: no need to check it again.
			List<Object> args = new ArrayList<>();
			args.add(leaseUntil);
			rows.forEach((row) -> args.add(row.id()));
			jdbc.update("UPDATE " + table + " SET claimed_until = ? WHERE id IN (" + placeholders(rows.size()) + ")",
					args.toArray());
			return rows;
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object sentBefore, int batchSize) {
			return jdbc.update("DELETE FROM " + table + " WHERE status = 'SENT' AND sent_at <= ? ORDER BY sent_at LIMIT ?",
					sentBefore, batchSize);
		}

	},

	/**
	 * Any other database (H2, ...): {@code SELECT ... FOR UPDATE} (waiting instead of skipping),
	 * then a conditional update of each row, so that a row another relay claimed meanwhile is
	 * dropped from the batch.
	 */
	GENERIC(DatabasePlatform.GENERIC) {

		@Override
		List<OutboxMessage> claim(JdbcTemplate jdbc, String table, String dueRows, Object now, Object leaseUntil,
				int batchSize, RowMapper<OutboxMessage> mapper) {
			List<OutboxMessage> rows = jdbc.query((connection) -> {
				PreparedStatement select = connection.prepareStatement(
						"SELECT " + COLUMNS + " FROM " + table + " o WHERE " + dueRows + " ORDER BY o.id FOR UPDATE");
				select.setObject(1, now);
				select.setObject(2, now);
				select.setMaxRows(batchSize);
				return select;
			}, mapper);
			List<OutboxMessage> won = new ArrayList<>();
			for (OutboxMessage row : rows) {
				if (jdbc.update("UPDATE " + table + " SET claimed_until = ? WHERE id = ? AND status = "
						+ "'PENDING' AND (claimed_until IS NULL OR claimed_until <= ?)", leaseUntil, row.id(),
						now) == 1) {
					won.add(row);
				}
			}
			return won;
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object sentBefore, int batchSize) {
			List<Long> ids = jdbc.query((connection) -> {
				PreparedStatement select = connection
					.prepareStatement("SELECT id FROM " + table + " WHERE status = 'SENT' AND sent_at <= ?");
				select.setObject(1, sentBefore);
				select.setMaxRows(batchSize);
				return select;
			}, (rs, row) -> rs.getLong(1));
			if (ids.isEmpty()) {
				return 0;
			}
			return jdbc.update("DELETE FROM " + table + " WHERE status = 'SENT' AND id IN (" + placeholders(ids.size())
					+ ")", ids.toArray());
		}

	};

	/** Columns a claim returns, in the order the repository's row mapper reads them by name. */
	static final String COLUMNS = "id, message_id, destination, message_key, payload, headers, status, attempts, "
			+ "created_at, claimed_until, last_error, traceparent";

	private final DatabasePlatform platform;

	OutboxDialect(DatabasePlatform platform) {
		this.platform = platform;
	}

	/**
	 * Converts an instant to the bind value of a timestamp column, as {@link DatabasePlatform}
	 * does for this dialect's databases.
	 * @param instant the instant
	 * @return the bind value
	 */
	public Object timestamp(Instant instant) {
		return this.platform.timestamp(instant);
	}

	/**
	 * Reads a timestamp column written with {@link #timestamp(Instant)}.
	 * @param rs the result set, on the current row
	 * @param column the column's label
	 * @return the instant, or {@code null} if the column is {@code NULL}
	 * @throws SQLException if the column cannot be read
	 */
	public @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
		return this.platform.instant(rs, column);
	}

	/**
	 * Claims at most {@code batchSize} due rows in id order inside the current transaction: selects
	 * and locks them and sets their {@code claimed_until}, leaving out rows another relay claimed
	 * meanwhile.
	 * @param dueRows the condition on alias {@code o} selecting due rows; its two parameters are
	 * both {@code now}
	 * @param now the current time, bound
	 * @param leaseUntil the new {@code claimed_until}, bound
	 * @return the claimed rows as they were read, before their lease was set
	 */
	abstract List<OutboxMessage> claim(JdbcTemplate jdbc, String table, String dueRows, Object now, Object leaseUntil,
			int batchSize, RowMapper<OutboxMessage> mapper);

	/**
	 * Marks the given rows {@code SENT} if they are still {@code PENDING}, inside the current
	 * transaction: one {@code UPDATE} by primary key per 500 rows.
	 * @param now the {@code sent_at}, bound
	 * @param ids the rows' ids
	 * @return how many rows were marked
	 */
	int markSent(JdbcTemplate jdbc, String table, Object now, List<Long> ids) {
		int updated = 0;
		for (int from = 0; from < ids.size(); from += 500) {
			List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + 500));
			List<Object> args = new ArrayList<>(chunk.size() + 1);
			args.add(now);
			args.addAll(chunk);
			updated += jdbc.update("UPDATE " + table + " SET status = 'SENT', sent_at = ?, claimed_until = NULL, "
					+ "last_error = NULL WHERE status = 'PENDING' AND id IN (" + placeholders(chunk.size()) + ")",
					args.toArray());
		}
		return updated;
	}

	/**
	 * Deletes at most {@code batchSize} rows sent before {@code sentBefore}, in its own short
	 * statement.
	 * @return how many were deleted
	 */
	abstract int purgeBatch(JdbcTemplate jdbc, String table, Object sentBefore, int batchSize);

	/**
	 * Picks the dialect of a database.
	 * @param dataSource the database
	 * @return the dialect, {@link #GENERIC} for databases without a dedicated one
	 * @throws IllegalStateException if the database's product name cannot be read
	 */
	public static OutboxDialect detect(DataSource dataSource) {
		return of(DatabasePlatform.detect(dataSource, "the outbox's SQL dialect"));
	}

	/**
	 * Picks the dialect of a Spring Boot database platform name or a database product name
	 * ({@code postgresql}, {@code mysql}, {@code mariadb}, {@code h2}, ...).
	 * @param platform the name, or {@code null}
	 * @return the dialect, {@link #GENERIC} for databases without a dedicated one
	 */
	public static OutboxDialect forPlatform(@Nullable String platform) {
		return of(DatabasePlatform.forName(platform));
	}

	/**
	 * The dialect of a database platform.
	 * @param platform the platform
	 * @return the dialect; {@link #MYSQL} for MariaDB too
	 */
	public static OutboxDialect of(DatabasePlatform platform) {
		return switch (platform) {
			case POSTGRESQL -> POSTGRESQL;
			case MYSQL, MARIADB -> MYSQL;
			case GENERIC -> GENERIC;
		};
	}

	static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

}
