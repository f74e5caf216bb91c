package dev.idempotency.guard;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

import javax.sql.DataSource;

import dev.idempotency.support.jdbc.DatabasePlatform;
import dev.idempotency.support.jdbc.SqlIdentifier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.JdbcUpdateAffectedIncorrectNumberOfRowsException;
import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCallback;

/**
 * Idempotency guards for the cases where the business row itself tells a duplicate delivery apart,
 * so that no dedup record ({@code @Idempotent}) is needed: a state transition, an optimistic version
 * and an insert on a natural unique key.
 * <p>
 * Every operation is one guarded statement judged by the number of rows it affected, never by
 * catching a duplicate-key exception: on PostgreSQL an exception aborts the whole transaction, so
 * the message's other writes could not continue. Only databases without an insert-or-ignore (H2 and
 * other generic ones) fall back to a savepoint for the race of two concurrent inserts, rolled back
 * to the savepoint so that the transaction stays usable.
 * <p>
 * Every operation runs on the given {@link JdbcTemplate} and so joins the caller's transaction (if
 * any): its writes commit or roll back with the message's other writes, and the caller decides what
 * a result means (skip and acknowledge, retry, dead-letter). Called outside a transaction, each
 * statement auto-commits on its own.
 * <p>
 * A guard is enough on its own only when the message's whole effect is that one row. When the
 * message has several effects, or effects outside the row (a call to another service, a message
 * sent), a redelivery after a partial failure must not redo them: keep a dedup record
 * ({@code @Idempotent}) for the message and use a guard for the row's own consistency.
 * <p>
 * Table and column names are spliced into the SQL, unquoted, after checking that they are plain
 * SQL identifiers ({@link SqlIdentifier}); values are always bind parameters. Thread-safe.
 *
 * @since 0.1.0
 */
public final class BusinessGuards {

	private static final Log logger = LogFactory.getLog(BusinessGuards.class);

	/** MySQL and MariaDB error code of a duplicate key, reported as a warning by INSERT IGNORE. */
	private static final int MYSQL_DUPLICATE_ENTRY = 1062;

	/** SQL standard state of a unique constraint violation. */
	private static final String UNIQUE_VIOLATION = "23505";

	private final JdbcTemplate jdbc;

	private final DatabasePlatform platform;

	/**
	 * Creates the guards for the database behind a {@code JdbcTemplate}, detecting its platform
	 * (this opens one connection).
	 * @param jdbc runs every statement; it joins the caller's transaction on its {@code DataSource}
	 * @throws IllegalArgumentException if the template has no {@code DataSource}
	 * @throws IllegalStateException if the database's product name cannot be read
	 */
	public BusinessGuards(JdbcTemplate jdbc) {
		this(jdbc, DatabasePlatform.detect(requireDataSource(jdbc), "the business guards' SQL"));
	}

	BusinessGuards(JdbcTemplate jdbc, DatabasePlatform platform) {
		this.jdbc = jdbc;
		this.platform = platform;
	}

	/** The platform whose SQL the guards use. */
	DatabasePlatform platform() {
		return this.platform;
	}

	/**
	 * Moves a row from one status to another unless it is not in that status: {@code UPDATE table
	 * SET statusColumn = to WHERE idColumn = id AND statusColumn = from}. See
	 * {@link #transition(String, String, Object, String, Set, String)}.
	 * @param table the table, optionally schema-qualified
	 * @param idColumn the column that identifies the row (unique)
	 * @param id the row's id
	 * @param statusColumn the status column
	 * @param from the status the message moves the row from
	 * @param to the status the message moves the row to; not {@code from}
	 * @return the outcome, and the row's current status
	 * @throws IllegalArgumentException if a name is not a plain SQL identifier or {@code from}
	 * equals {@code to}
	 * @throws org.springframework.dao.DataAccessException if a statement fails, or more than one
	 * row has the id
	 */
	public Transition transition(String table, String idColumn, Object id, String statusColumn, String from,
			String to) {
		return transition(table, idColumn, id, statusColumn, Set.of(from), to);
	}

	/**
	 * Moves a row from any of several statuses to a target status unless it is in none of them:
	 * {@code UPDATE table SET statusColumn = to WHERE idColumn = id AND statusColumn IN (from...)}.
	 * One updated row means this call applied the transition; otherwise the row's status is read to
	 * tell a duplicate delivery ({@link Transition.Result#ALREADY_IN_TARGET}) from a message that
	 * does not apply ({@link Transition.Result#CONFLICT}) and a missing row
	 * ({@link Transition.Result#NOT_FOUND}).
	 * <p>
	 * Prefer it over a dedup record when the message moves an entity through its states (an order
	 * paid, a shipment dispatched) and its only effect is the new status, or its other effects are
	 * written in the same transaction only when the result is {@code APPLIED}. Concurrent
	 * deliveries of one message are decided by the row lock: exactly one gets {@code APPLIED}, the
	 * others, once it commits, {@code ALREADY_IN_TARGET}.
	 * <p>
	 * Runs in the caller's transaction. On MySQL and MariaDB the status is re-read with a locking
	 * read, which sees the newest committed status where a plain read under {@code REPEATABLE READ}
	 * would see the transaction's older snapshot. On PostgreSQL under {@code REPEATABLE READ} or
	 * {@code SERIALIZABLE}, a concurrent transition fails with a serialization failure instead,
	 * which a retry turns into {@code ALREADY_IN_TARGET}.
	 * @param table the table, optionally schema-qualified
	 * @param idColumn the column that identifies the row (unique)
	 * @param id the row's id
	 * @param statusColumn the status column
	 * @param from the statuses the message may move the row from; not empty, not containing
	 * {@code to} (a duplicate would be applied again)
	 * @param to the status the message moves the row to
	 * @return the outcome, and the row's current status
	 * @throws IllegalArgumentException if a name is not a plain SQL identifier, {@code from} is
	 * empty or contains {@code to}
	 * @throws org.springframework.dao.DataAccessException if a statement fails, or more than one
	 * row has the id (the caller's transaction must then roll back)
	 */
	public Transition transition(String table, String idColumn, Object id, String statusColumn, Set<String> from,
			String to) {
		String tableName = SqlIdentifier.requireValid(table);
		String idName = column(idColumn);
		String statusName = column(statusColumn);
		if (from.isEmpty()) {
			throw new IllegalArgumentException("At least one source status is required");
		}
		if (from.contains(to)) {
			throw new IllegalArgumentException("The source statuses " + from + " contain the target status '" + to
					+ "': a duplicate delivery would be applied again");
		}
		List<Object> args = new ArrayList<>();
		args.add(to);
		args.add(id);
		args.addAll(new LinkedHashSet<>(from));
		String sql = "UPDATE " + tableName + " SET " + statusName + " = ? WHERE " + idName + " = ? AND " + statusName
				+ ((from.size() == 1) ? " = ?" : " IN (" + placeholders(from.size()) + ")");
		if (requireAtMostOneRow(sql, this.jdbc.update(sql, args.toArray()))) {
			return new Transition(Transition.Result.APPLIED, to);
		}
		List<String> current = this.jdbc.query(readCurrent(statusName, tableName, idName),
				(rs, rowNum) -> rs.getString(1), id);
		if (current.isEmpty()) {
			return new Transition(Transition.Result.NOT_FOUND, null);
		}
		String status = current.get(0);
		return to.equals(status) ? new Transition(Transition.Result.ALREADY_IN_TARGET, to)
				: new Transition(Transition.Result.CONFLICT, status);
	}

	/**
	 * Changes a row only if it has the version the message expects, and increments the version:
	 * {@code UPDATE table SET c1 = ?, ..., versionColumn = versionColumn + 1 WHERE idColumn = ? AND
	 * versionColumn = ?}. One updated row means this call applied the change; otherwise the row's
	 * version is read: higher means the change (or a later one) was applied already
	 * ({@link VersionedUpdate.Result#STALE}), lower that a change it builds on has not arrived yet
	 * ({@link VersionedUpdate.Result#AHEAD}).
	 * <p>
	 * Prefer it over a dedup record when messages carry the entity version they were produced
	 * from (change data capture, event-sourced snapshots) and their effect is the row's new
	 * values. Concurrent deliveries of one message are decided by the row lock: exactly one gets
	 * {@code APPLIED}, the others {@code STALE}.
	 * <p>
	 * Runs in the caller's transaction; the version is re-read as {@link #transition} re-reads the
	 * status.
	 * @param table the table, optionally schema-qualified
	 * @param idColumn the column that identifies the row (unique)
	 * @param id the row's id
	 * @param versionColumn the numeric version column ({@code NOT NULL})
	 * @param expectedVersion the version the message was produced from
	 * @param changes the columns to set and their values, set in the map's iteration order (use a
	 * {@link LinkedHashMap} for a stable statement); may be empty to increment the version only;
	 * neither the id nor the version column
	 * @return the outcome, and the row's version
	 * @throws IllegalArgumentException if a name is not a plain SQL identifier or {@code changes}
	 * names the id or version column
	 * @throws IllegalStateException if the row's version is {@code NULL}
	 * @throws org.springframework.dao.DataAccessException if a statement fails, or more than one
	 * row has the id (the caller's transaction must then roll back)
	 */
	public VersionedUpdate updateIfVersion(String table, String idColumn, Object id, String versionColumn,
			long expectedVersion, Map<String, ? extends @Nullable Object> changes) {
		String tableName = SqlIdentifier.requireValid(table);
		String idName = column(idColumn);
		String versionName = column(versionColumn);
		StringJoiner assignments = new StringJoiner(", ");
		List<@Nullable Object> args = new ArrayList<>();
		for (Map.Entry<String, ? extends @Nullable Object> change : new LinkedHashMap<>(changes).entrySet()) {
			String name = column(change.getKey());
			if (name.equalsIgnoreCase(idName) || name.equalsIgnoreCase(versionName)) {
				throw new IllegalArgumentException("The changes must not set the id or version column '" + name + "'");
			}
			assignments.add(name + " = ?");
			args.add(change.getValue());
		}
		assignments.add(versionName + " = " + versionName + " + 1");
		args.add(id);
		args.add(expectedVersion);
		String sql = "UPDATE " + tableName + " SET " + assignments + " WHERE " + idName + " = ? AND " + versionName
				+ " = ?";
		if (requireAtMostOneRow(sql, this.jdbc.update(sql, args.toArray()))) {
			return new VersionedUpdate(VersionedUpdate.Result.APPLIED, expectedVersion + 1);
		}
		List<@Nullable Long> current = this.jdbc.query(readCurrent(versionName, tableName, idName),
				(rs, rowNum) -> {
					long version = rs.getLong(1);
					return rs.wasNull() ? null : version;
				}, id);
		if (current.isEmpty()) {
			return new VersionedUpdate(VersionedUpdate.Result.NOT_FOUND, null);
		}
		Long version = current.get(0);
		if (version == null) {
			throw new IllegalStateException("The version column " + versionName + " of " + tableName + " row " + id
					+ " is NULL; a versioned row needs a NOT NULL version");
		}
		if (version == expectedVersion) {
			// The update and the read saw different rows: not possible with the reads used here.
			throw new IllegalStateException("Row " + id + " of " + tableName + " has the expected version "
					+ expectedVersion + " but was not updated");
		}
		return new VersionedUpdate(
				(version > expectedVersion) ? VersionedUpdate.Result.STALE : VersionedUpdate.Result.AHEAD, version);
	}

	/**
	 * Inserts a row unless a row with the same business key is present, and says whether it did.
	 * <p>
	 * Prefer it over a dedup record when the message creates a row with a natural business key (a
	 * payment id, an order number) under a unique constraint, and that row is its whole effect.
	 * Concurrent deliveries of one key are decided by the unique index: exactly one inserts, the
	 * others wait for it to commit and return {@code false} (or insert, if it rolled back).
	 * <p>
	 * Runs in the caller's transaction, which stays usable after a duplicate. Per database:
	 * <ul>
	 * <li>PostgreSQL: {@code INSERT ... ON CONFLICT (uniqueColumns) DO NOTHING}; the columns must be
	 * exactly those of a unique constraint or index, and a conflict on another constraint is an
	 * error.</li>
	 * <li>MySQL and MariaDB: {@code INSERT IGNORE}, since {@code ON DUPLICATE KEY UPDATE} cannot be
	 * judged by affected rows with the drivers' default "found rows" count (a duplicate counts 1,
	 * like an insert). {@code INSERT IGNORE} also turns other errors into warnings (a truncated
	 * value, a {@code NULL} in a {@code NOT NULL} column, a foreign key violation), and would insert
	 * the coerced row: this method reads the statement's warnings and throws
	 * {@link DataIntegrityViolationException} on any warning other than a duplicate key, so the
	 * caller's transaction rolls back (a caller that catches it and commits keeps the coerced
	 * row). A duplicate on any unique key of the table, not only {@code uniqueColumns}, counts as
	 * present.</li>
	 * <li>Other databases (H2, ...): a plain insert in a savepoint, rolled back to the savepoint on a
	 * unique violation (any unique key of the table); outside a transaction, without a
	 * savepoint.</li>
	 * </ul>
	 * @param table the table, optionally schema-qualified
	 * @param row the columns to insert and their values, in the map's iteration order; not empty
	 * @param uniqueColumns the business key: columns of {@code row} under one unique constraint;
	 * not empty
	 * @return {@code true} if the row was inserted, {@code false} if its key was present
	 * @throws IllegalArgumentException if a name is not a plain SQL identifier, {@code row} or
	 * {@code uniqueColumns} is empty, or a unique column is not in {@code row}
	 * @throws DataIntegrityViolationException on MySQL and MariaDB, if the insert raised a warning
	 * other than a duplicate key
	 * @throws org.springframework.dao.DataAccessException if the statement fails
	 */
	public boolean insertIfAbsent(String table, Map<String, ? extends @Nullable Object> row,
			List<String> uniqueColumns) {
		String tableName = SqlIdentifier.requireValid(table);
		if (row.isEmpty()) {
			throw new IllegalArgumentException("The row to insert has no columns");
		}
		if (uniqueColumns.isEmpty()) {
			throw new IllegalArgumentException("At least one unique column is required");
		}
		StringJoiner columns = new StringJoiner(", ");
		List<@Nullable Object> values = new ArrayList<>();
		for (Map.Entry<String, ? extends @Nullable Object> value : new LinkedHashMap<>(row).entrySet()) {
			columns.add(column(value.getKey()));
			values.add(value.getValue());
		}
		StringJoiner key = new StringJoiner(", ");
		for (String uniqueColumn : uniqueColumns) {
			if (!row.containsKey(uniqueColumn)) {
				throw new IllegalArgumentException("Unique column '" + uniqueColumn + "' is not in the row");
			}
			key.add(column(uniqueColumn));
		}
		String insert = " INTO " + tableName + " (" + columns + ") VALUES (" + placeholders(values.size()) + ")";
		Object[] args = values.toArray();
		return switch (this.platform) {
			case POSTGRESQL -> this.jdbc.update("INSERT" + insert + " ON CONFLICT (" + key + ") DO NOTHING", args) == 1;
			case MYSQL, MARIADB -> insertIgnore("INSERT IGNORE" + insert, args);
			case GENERIC -> insertInSavepoint("INSERT" + insert, args);
		};
	}

	private boolean insertIgnore(String sql, Object[] args) {
		Integer inserted = this.jdbc.execute(sql, (PreparedStatementCallback<Integer>) (ps) -> {
			new ArgumentPreparedStatementSetter(args).setValues(ps);
			int rows = ps.executeUpdate();
			List<String> otherWarnings = new ArrayList<>();
			for (SQLWarning warning = ps.getWarnings(); warning != null; warning = warning.getNextWarning()) {
				if (warning.getErrorCode() != MYSQL_DUPLICATE_ENTRY) {
					otherWarnings.add(warning.getErrorCode() + " " + warning.getMessage());
				}
			}
			// The duplicate's warning is expected: keep a template with ignoreWarnings = false quiet.
			ps.clearWarnings();
			if (!otherWarnings.isEmpty()) {
				throw new DataIntegrityViolationException("INSERT IGNORE raised warnings other than a duplicate key "
						+ otherWarnings + " and may have stored a coerced row; roll the transaction back: " + sql);
			}
			return rows;
		});
		return inserted != null && inserted == 1;
	}

	private boolean insertInSavepoint(String sql, Object[] args) {
		Boolean inserted = this.jdbc.execute((ConnectionCallback<Boolean>) (connection) -> {
			Savepoint savepoint = connection.getAutoCommit() ? null : connection.setSavepoint();
			try (PreparedStatement insert = connection.prepareStatement(sql)) {
				new ArgumentPreparedStatementSetter(args).setValues(insert);
				int rows = insert.executeUpdate();
				if (savepoint != null) {
					releaseIfSupported(connection, savepoint);
				}
				return rows == 1;
			}
			catch (SQLException ex) {
				if (UNIQUE_VIOLATION.equals(ex.getSQLState()) || this.jdbc.getExceptionTranslator()
					.translate("insertIfAbsent", sql, ex) instanceof DuplicateKeyException) {
					if (savepoint != null) {
						connection.rollback(savepoint);
					}
					return false;
				}
				throw ex;
			}
		});
		return Boolean.TRUE.equals(inserted);
	}

	/**
	 * Whether the guarded update changed the row; more than one row means the id column is not
	 * unique and the caller's transaction must roll back.
	 */
	private static boolean requireAtMostOneRow(String sql, int rows) {
		if (rows > 1) {
			throw new JdbcUpdateAffectedIncorrectNumberOfRowsException(sql, 1, rows);
		}
		return rows == 1;
	}

	/**
	 * Reads one column of a row after a guarded update matched nothing. On MySQL and MariaDB a
	 * locking read, which sees the newest committed value where a plain read under
	 * {@code REPEATABLE READ} sees the transaction's snapshot; under that level InnoDB's update has
	 * already locked the row, so it costs no extra lock. PostgreSQL and the others read a
	 * statement-level snapshot under {@code READ COMMITTED}, their default.
	 */
	private String readCurrent(String column, String table, String idColumn) {
		String sql = "SELECT " + column + " FROM " + table + " WHERE " + idColumn + " = ?";
		return switch (this.platform) {
			case MYSQL, MARIADB -> sql + " FOR UPDATE";
			case POSTGRESQL, GENERIC -> sql;
		};
	}

	/** Checks a column name: a plain, unqualified SQL identifier. */
	private static String column(String name) {
		if (name == null || name.indexOf('.') >= 0) {
			throw new IllegalArgumentException("Column name '" + name + "' is not a plain SQL identifier");
		}
		try {
			return SqlIdentifier.requireValid(name);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Column name '" + name + "' is not a plain SQL identifier "
					+ "(letters, digits and underscores, at most 63 characters)", ex);
		}
	}

	private static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

	private static DataSource requireDataSource(JdbcTemplate jdbc) {
		DataSource dataSource = jdbc.getDataSource();
		if (dataSource == null) {
			throw new IllegalArgumentException("The JdbcTemplate has no DataSource");
		}
		return dataSource;
	}

	/**
	 * Releases a savepoint early, as a courtesy; a driver that cannot (Oracle's) leaves it to the
	 * transaction's end, as Spring's own savepoint handling does.
	 */
	private static void releaseIfSupported(Connection connection, Savepoint savepoint) {
		try {
			connection.releaseSavepoint(savepoint);
		}
		catch (SQLException | RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not release a JDBC savepoint; the transaction's end releases it", ex);
			}
		}
	}

}
