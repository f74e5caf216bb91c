package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotency.core.IdempotencyKey;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * How one database family inserts a record unless it is present, and deletes expired records in
 * bounded batches. A duplicate is always judged by the affected-row count, never by catching an
 * exception in the business transaction: on PostgreSQL a caught unique violation still aborts it.
 *
 * @since 0.1.0
 */
public enum JdbcIdempotencyDialect {

	/**
	 * {@code INSERT ... SELECT ... WHERE NOT EXISTS (live record) ON CONFLICT DO UPDATE ... WHERE
	 * expired}: one statement inserts a new record or takes over an expired one (1 row) and leaves a
	 * live one alone (0 rows), so a duplicate costs no second round trip. Purge by {@code ctid} with
	 * {@code SKIP LOCKED}.
	 */
	POSTGRESQL {

		/*
		 * The NOT EXISTS guard keeps a committed live duplicate away from DO UPDATE, which would lock
		 * its row even when its WHERE is false: that gives the duplicate's transaction an xid, a WAL
		 * record and a flushed commit where a skipped message otherwise writes nothing. The conflict
		 * clause still decides every race the guard's snapshot cannot see (an uncommitted claim, a
		 * concurrent takeover).
		 */
		@Override
		String insertSql(String table) {
			return "INSERT INTO " + table + " AS r (namespace, idempotency_key, status, created_at, expires_at)"
					+ " SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM " + table + " live"
					+ " WHERE live.namespace = ? AND live.idempotency_key = ? AND live.expires_at > ?)"
					+ TAKE_OVER_EXPIRED;
		}

		@Override
		int insertIfAbsent(JdbcTemplate jdbc, String sql, Object... args) {
			// namespace, key, status, created-at, expires-at; then namespace, key, created-at for the guard
			return jdbc.update(sql, args[0], args[1], args[2], args[3], args[4], args[0], args[1], args[3]);
		}

		@Override
		boolean insertTakesOverExpired() {
			return true;
		}

		@Override
		Object timestamp(Instant instant) {
			return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object now, int batchSize) {
			return jdbc.update("DELETE FROM " + table + " WHERE ctid IN (SELECT ctid FROM " + table
					+ " WHERE expires_at <= ? LIMIT ? FOR UPDATE SKIP LOCKED)", now, batchSize);
		}

		@Override
		@Nullable List<IdempotencyKey> insertAllIfAbsent(JdbcTemplate jdbc, String table, List<IdempotencyKey> keys,
				String status, Object createdAt, Object expiresAt) {
			return insertAllReturning(jdbc, "INSERT INTO " + table + " AS r", TAKE_OVER_EXPIRED, keys, status, createdAt,
					expiresAt);
		}

	},

	/** MySQL: {@code INSERT IGNORE}; purge with {@code DELETE ... LIMIT}. */
	MYSQL {

		@Override
		String insertSql(String table) {
			return insertIgnoreSql(table);
		}

		@Override
		Object timestamp(Instant instant) {
			return utcDateTime(instant);
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object now, int batchSize) {
			return purgeWithLimit(jdbc, table, now, batchSize);
		}

	},

	/**
	 * MariaDB: as {@link #MYSQL}, and a batch is claimed with one {@code INSERT IGNORE ... RETURNING}
	 * (MariaDB 10.5+), which returns only the rows it inserted.
	 */
	MARIADB {

		@Override
		String insertSql(String table) {
			return insertIgnoreSql(table);
		}

		@Override
		Object timestamp(Instant instant) {
			return utcDateTime(instant);
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object now, int batchSize) {
			return purgeWithLimit(jdbc, table, now, batchSize);
		}

		@Override
		@Nullable List<IdempotencyKey> insertAllIfAbsent(JdbcTemplate jdbc, String table, List<IdempotencyKey> keys,
				String status, Object createdAt, Object expiresAt) {
			return insertAllReturning(jdbc, "INSERT IGNORE INTO " + table, "", keys, status, createdAt, expiresAt);
		}

	},

	/**
	 * Any other database (H2, HSQLDB, Oracle, SQL Server, ...): a plain insert inside a savepoint,
	 * rolled back to the savepoint on a duplicate key so the business transaction stays usable (a
	 * driver that cannot release a savepoint leaves it to the transaction's end); purge selects a
	 * bounded batch of keys and deletes them by primary key.
	 */
	GENERIC {

		@Override
		String insertSql(String table) {
			return INSERT.formatted(table);
		}

		@Override
		int insertIfAbsent(JdbcTemplate jdbc, String sql, Object... args) {
			Integer inserted = jdbc.execute((ConnectionCallback<Integer>) (connection) -> insertInSavepoint(jdbc,
					connection, sql, args));
			return (inserted != null) ? inserted : 0;
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object now, int batchSize) {
			List<Object[]> expired = jdbc.query((connection) -> {
				PreparedStatement select = connection
					.prepareStatement("SELECT namespace, idempotency_key FROM " + table + " WHERE expires_at <= ?");
				select.setObject(1, now);
				select.setMaxRows(batchSize);
				return select;
			}, (rs, row) -> new Object[] { rs.getString(1), rs.getString(2), now });
			if (expired.isEmpty()) {
				return 0;
			}
			int[][] deleted = jdbc.batchUpdate(
					"DELETE FROM " + table + " WHERE namespace = ? AND idempotency_key = ? AND expires_at <= ?", expired,
					expired.size(), (ps, args) -> {
						ps.setString(1, (String) args[0]);
						ps.setString(2, (String) args[1]);
						ps.setObject(3, args[2]);
					});
			int total = 0;
			for (int[] batch : deleted) {
				for (int count : batch) {
					total += Math.max(count, 0);
				}
			}
			return total;
		}

	};

	private static final Log logger = LogFactory.getLog(JdbcIdempotencyDialect.class);

	/** SQL standard state of a unique constraint violation. */
	private static final String UNIQUE_VIOLATION = "23505";

	/**
	 * PostgreSQL's conflict clause: the live record is only locked (as {@code INSERT ... DO NOTHING}
	 * would wait for an uncommitted one anyway), an expired one is overwritten in place. Keys in one statement are
	 * distinct, as {@code DO UPDATE} requires.
	 */
	private static final String TAKE_OVER_EXPIRED = " ON CONFLICT (namespace, idempotency_key) DO UPDATE SET"
			+ " status = EXCLUDED.status, lease_until = EXCLUDED.lease_until, created_at = EXCLUDED.created_at,"
			+ " expires_at = EXCLUDED.expires_at WHERE r.expires_at <= EXCLUDED.created_at";

	private static final String INSERT = "INSERT INTO %s (namespace, idempotency_key, status, created_at, expires_at)"
			+ " VALUES (?, ?, ?, ?, ?)";

	/**
	 * Returns the statement that inserts a record unless its key is present; parameters are
	 * namespace, key, status, created-at and expires-at.
	 */
	abstract String insertSql(String table);

	/**
	 * Whether {@link #insertSql} and {@link #insertAllIfAbsent} also claim a record whose retention
	 * has passed, so that zero affected rows always means a live duplicate.
	 */
	boolean insertTakesOverExpired() {
		return false;
	}

	/**
	 * Converts an instant to the bind value of a timestamp column, so that every instance stores and
	 * compares the same point in time whatever its JVM's time zone.
	 */
	Object timestamp(Instant instant) {
		return Timestamp.from(instant);
	}

	/**
	 * Runs {@link #insertSql} in the current transaction.
	 * @return 1 if inserted, 0 if the key was present
	 */
	int insertIfAbsent(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.update(sql, args);
	}

	/**
	 * Inserts records for distinct keys unless present, in one statement, in the current
	 * transaction, and tells which it inserted.
	 * @return the keys inserted, or {@code null} if this dialect cannot tell in one statement (the
	 * store then claims the keys one by one)
	 */
	@Nullable List<IdempotencyKey> insertAllIfAbsent(JdbcTemplate jdbc, String table, List<IdempotencyKey> keys,
			String status, Object createdAt, Object expiresAt) {
		return null;
	}

	/**
	 * Deletes at most {@code batchSize} records that expired before {@code now}, in its own
	 * short statement.
	 * @return how many were deleted
	 */
	abstract int purgeBatch(JdbcTemplate jdbc, String table, Object now, int batchSize);

	/**
	 * Picks the dialect of a database.
	 * @param dataSource the database
	 * @return the dialect, {@link #GENERIC} for databases without a dedicated one
	 */
	public static JdbcIdempotencyDialect detect(DataSource dataSource) {
		try {
			String product = JdbcUtils.commonDatabaseName(
					JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName));
			return forProductName(product);
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not read the database product name to choose the idempotency "
					+ "store's SQL dialect; is the database up?", ex);
		}
	}

	/**
	 * Picks the dialect of a Spring Boot database platform name ({@code postgresql}, {@code mysql},
	 * {@code mariadb}, {@code h2}, ...).
	 * @param platform the platform name
	 * @return the dialect, {@link #GENERIC} for platforms without a dedicated one
	 */
	public static JdbcIdempotencyDialect forPlatform(String platform) {
		return forProductName(platform);
	}

	static JdbcIdempotencyDialect forProductName(String product) {
		if (product == null) {
			return GENERIC;
		}
		String name = product.toLowerCase(java.util.Locale.ROOT);
		if (name.contains("postgres")) {
			return POSTGRESQL;
		}
		if (name.contains("mariadb")) {
			return MARIADB;
		}
		if (name.contains("mysql")) {
			return MYSQL;
		}
		return GENERIC;
	}

	private static String insertIgnoreSql(String table) {
		return INSERT.replaceFirst("INSERT INTO", "INSERT IGNORE INTO").formatted(table);
	}

	private static Object utcDateTime(Instant instant) {
		// DATETIME has no zone: store UTC wall-clock time, whatever the JVM's zone.
		return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
	}

	private static int purgeWithLimit(JdbcTemplate jdbc, String table, Object now, int batchSize) {
		return jdbc.update("DELETE FROM " + table + " WHERE expires_at <= ? ORDER BY expires_at LIMIT ?", now,
				batchSize);
	}

	/** A multi-row insert-or-ignore whose {@code RETURNING} clause yields only the inserted rows. */
	private static List<IdempotencyKey> insertAllReturning(JdbcTemplate jdbc, String insertInto, String onConflict,
			List<IdempotencyKey> keys, String status, Object createdAt, Object expiresAt) {
		StringBuilder sql = new StringBuilder(insertInto)
			.append(" (namespace, idempotency_key, status, created_at, expires_at) VALUES ");
		List<Object> args = new ArrayList<>(keys.size() * 5);
		for (int i = 0; i < keys.size(); i++) {
			sql.append((i > 0) ? ", (?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?)");
			args.addAll(List.of(keys.get(i).namespace(), keys.get(i).value(), status, createdAt, expiresAt));
		}
		sql.append(onConflict).append(" RETURNING namespace, idempotency_key");
		return jdbc.query(sql.toString(), (rs, row) -> new IdempotencyKey(rs.getString(1), rs.getString(2)),
				args.toArray());
	}

	private static int insertInSavepoint(JdbcTemplate jdbc, Connection connection, String sql, Object[] args)
			throws SQLException {
		Savepoint savepoint = connection.setSavepoint();
		try (PreparedStatement insert = connection.prepareStatement(sql)) {
			for (int i = 0; i < args.length; i++) {
				insert.setObject(i + 1, args[i]);
			}
			int inserted = insert.executeUpdate();
			releaseIfSupported(connection, savepoint);
			return inserted;
		}
		catch (SQLException ex) {
			if (UNIQUE_VIOLATION.equals(ex.getSQLState())
					|| jdbc.getExceptionTranslator().translate("claim", sql, ex) instanceof DuplicateKeyException) {
				connection.rollback(savepoint);
				return 0;
			}
			throw ex;
		}
	}

	/**
	 * Releases a savepoint early, as a courtesy to the database. Some drivers do not support it
	 * (Oracle's, for one); as Spring's own savepoint handling does, a failed release is ignored: the
	 * commit or rollback of the transaction releases the savepoint anyway.
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
