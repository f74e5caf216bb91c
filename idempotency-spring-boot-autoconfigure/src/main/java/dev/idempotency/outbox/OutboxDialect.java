package dev.idempotency.outbox;

import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * How one database family claims due outbox rows for a relay and deletes sent rows in bounded
 * batches. Every claim runs inside the relay's short claim transaction; rows another relay is
 * claiming at that moment are skipped ({@code FOR UPDATE SKIP LOCKED}) rather than waited for.
 *
 * @since 0.1.0
 */
public enum OutboxDialect {

	/**
	 * One statement: {@code UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING}.
	 */
	POSTGRESQL {

		@Override
		Object timestamp(Instant instant) {
			return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
		}

		@Override
		@Nullable Instant instant(ResultSet rs, String column) throws SQLException {
			OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
			return (value != null) ? value.toInstant() : null;
		}

		@Override
		<T> List<T> claim(JdbcTemplate jdbc, String table, String dueRows, Object[] dueArgs, Object leaseUntil,
				int batchSize, RowMapper<T> mapper) {
			String sql = "UPDATE " + table + " SET claimed_until = ? WHERE id IN (SELECT o.id FROM " + table + " o"
					+ " WHERE " + dueRows + " ORDER BY o.id LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING " + COLUMNS;
			return jdbc.query(sql, mapper, args(leaseUntil, dueArgs, batchSize));
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object sentBefore, int batchSize) {
			return jdbc.update("DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table
					+ " WHERE status = 'SENT' AND sent_at <= ? LIMIT ? FOR UPDATE SKIP LOCKED)", sentBefore, batchSize);
		}

	},

	/**
	 * MySQL 8 and MariaDB 10.6 or later: {@code SELECT ... FOR UPDATE SKIP LOCKED}, then one
	 * {@code UPDATE} of the locked rows; purge with {@code DELETE ... LIMIT}.
	 */
	MYSQL {

		@Override
		Object timestamp(Instant instant) {
			// DATETIME has no zone: store UTC wall-clock time, whatever the JVM's zone.
			return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
		}

		@Override
		@Nullable Instant instant(ResultSet rs, String column) throws SQLException {
			LocalDateTime value = rs.getObject(column, LocalDateTime.class);
			return (value != null) ? value.toInstant(ZoneOffset.UTC) : null;
		}

		@Override
		<T> List<T> claim(JdbcTemplate jdbc, String table, String dueRows, Object[] dueArgs, Object leaseUntil,
				int batchSize, RowMapper<T> mapper) {
			String select = "SELECT " + COLUMNS + " FROM " + table + " o WHERE " + dueRows
					+ " ORDER BY o.id LIMIT ? FOR UPDATE SKIP LOCKED";
			List<Object> selectArgs = new ArrayList<>(List.of(dueArgs));
			selectArgs.add(batchSize);
			List<T> rows = jdbc.query(select, mapper, selectArgs.toArray());
			return rows;
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object sentBefore, int batchSize) {
			return jdbc.update("DELETE FROM " + table + " WHERE status = 'SENT' AND sent_at <= ? ORDER BY sent_at LIMIT ?",
					sentBefore, batchSize);
		}

		@Override
		boolean claimLocksRows() {
			return true;
		}

	},

	/**
	 * Any other database (H2, ...): {@code SELECT ... FOR UPDATE} (waiting instead of skipping),
	 * then a conditional update of each row, so that a row another relay claimed meanwhile is
	 * dropped from the batch.
	 */
	GENERIC {

		@Override
		<T> List<T> claim(JdbcTemplate jdbc, String table, String dueRows, Object[] dueArgs, Object leaseUntil,
				int batchSize, RowMapper<T> mapper) {
			return jdbc.query((connection) -> {
				PreparedStatement select = connection.prepareStatement(
						"SELECT " + COLUMNS + " FROM " + table + " o WHERE " + dueRows + " ORDER BY o.id FOR UPDATE");
				for (int i = 0; i < dueArgs.length; i++) {
					select.setObject(i + 1, dueArgs[i]);
				}
				select.setMaxRows(batchSize);
				return select;
			}, mapper);
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
			+ "created_at, claimed_until, last_error";

	/**
	 * Converts an instant to the bind value of a timestamp column, so that every instance stores and
	 * compares the same point in time whatever its JVM's time zone.
	 */
	Object timestamp(Instant instant) {
		return Timestamp.from(instant);
	}

	/**
	 * Reads a timestamp column written with {@link #timestamp(Instant)}.
	 */
	@Nullable Instant instant(ResultSet rs, String column) throws SQLException {
		Timestamp value = rs.getTimestamp(column);
		return (value != null) ? value.toInstant() : null;
	}

	/**
	 * Selects at most {@code batchSize} due rows in id order, locking them, inside the current
	 * transaction. Dialects that return the rows already updated ({@link #POSTGRESQL}) set
	 * {@code claimed_until}; the others leave that to the repository.
	 * @param dueRows the condition on alias {@code o} selecting due rows
	 * @param dueArgs its bind values
	 * @param leaseUntil the new {@code claimed_until}
	 */
	abstract <T> List<T> claim(JdbcTemplate jdbc, String table, String dueRows, Object[] dueArgs, Object leaseUntil,
			int batchSize, RowMapper<T> mapper);

	/**
	 * Whether {@link #claim} locked every row it returned, so that they can be updated without
	 * re-checking them.
	 */
	boolean claimLocksRows() {
		return false;
	}

	/** Whether {@link #claim} already set {@code claimed_until}. */
	boolean claimUpdatesRows() {
		return this == POSTGRESQL;
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
	 */
	public static OutboxDialect detect(DataSource dataSource) {
		try {
			String product = JdbcUtils.commonDatabaseName(
					JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName));
			return forPlatform(product);
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not read the database product name to choose the outbox's SQL "
					+ "dialect; is the database up?", ex);
		}
	}

	/**
	 * Picks the dialect of a Spring Boot database platform name or a database product name
	 * ({@code postgresql}, {@code mysql}, {@code mariadb}, {@code h2}, ...).
	 * @param platform the name, or {@code null}
	 * @return the dialect, {@link #GENERIC} for databases without a dedicated one
	 */
	public static OutboxDialect forPlatform(@Nullable String platform) {
		if (platform == null) {
			return GENERIC;
		}
		String name = platform.toLowerCase(Locale.ROOT);
		if (name.contains("postgres")) {
			return POSTGRESQL;
		}
		if (name.contains("mysql") || name.contains("mariadb")) {
			return MYSQL;
		}
		return GENERIC;
	}

	static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

	private static Object[] args(Object first, Object[] middle, Object last) {
		Object[] all = new Object[middle.length + 2];
		all[0] = first;
		System.arraycopy(middle, 0, all, 1, middle.length);
		all[all.length - 1] = last;
		return all;
	}

}
