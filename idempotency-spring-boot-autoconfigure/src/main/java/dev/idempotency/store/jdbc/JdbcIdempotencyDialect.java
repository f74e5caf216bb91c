package dev.idempotency.store.jdbc;

import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.support.jdbc.DatabasePlatform;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * How one database family inserts a record unless it is present, and deletes expired records in
 * bounded batches. A duplicate is always judged by the affected-row count, never by catching an
 * exception in the business transaction: on PostgreSQL a caught unique violation still aborts it.
 * Detection and timestamp columns are the {@link DatabasePlatform}'s, shared with the outbox.
 *
 * @since 0.1.0
 */
public enum JdbcIdempotencyDialect {

	/**
	 * One guarded upsert ({@link ClaimStatement.GuardedUpsert}) that also takes over an expired
	 * record. Purge by {@code ctid} with {@code SKIP LOCKED}.
	 */
	POSTGRESQL(DatabasePlatform.POSTGRESQL) {

		@Override
		ClaimStatement claimStatement(String table) {
			return new ClaimStatement.GuardedUpsert(table, TAKE_OVER_EXPIRED);
		}

		@Override
		boolean insertTakesOverExpired() {
			return true;
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object now, int batchSize) {
			return jdbc.update("DELETE FROM " + table + " WHERE ctid IN (SELECT ctid FROM " + table
					+ " WHERE expires_at <= ? LIMIT ? FOR UPDATE SKIP LOCKED)", now, batchSize);
		}

		@Override
		@Nullable List<IdempotencyKey> insertAllIfAbsent(JdbcTemplate jdbc, String table, List<IdempotencyKey> keys,
				String status, Object createdAt, Object expiresAt) {
			return insertAllGuarded(jdbc, table, keys, status, createdAt, expiresAt);
		}

	},

	/** MySQL: {@code INSERT IGNORE}; purge with {@code DELETE ... LIMIT}. */
	MYSQL(DatabasePlatform.MYSQL) {

		@Override
		ClaimStatement claimStatement(String table) {
			return new ClaimStatement.InsertIgnore(table);
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
	MARIADB(DatabasePlatform.MARIADB) {

		@Override
		ClaimStatement claimStatement(String table) {
			return new ClaimStatement.InsertIgnore(table);
		}

		@Override
		int purgeBatch(JdbcTemplate jdbc, String table, Object now, int batchSize) {
			return purgeWithLimit(jdbc, table, now, batchSize);
		}

		@Override
		@Nullable List<IdempotencyKey> insertAllIfAbsent(JdbcTemplate jdbc, String table, List<IdempotencyKey> keys,
				String status, Object createdAt, Object expiresAt) {
			return insertIgnoreAllReturning(jdbc, table, keys, status, createdAt, expiresAt);
		}

	},

	/**
	 * Any other database (H2, HSQLDB, Oracle, SQL Server, ...): a plain insert inside a savepoint
	 * ({@link SavepointInsert}); purge selects a bounded batch of keys and deletes them by primary
	 * key.
	 */
	GENERIC(DatabasePlatform.GENERIC) {

		@Override
		ClaimStatement claimStatement(String table) {
			return new SavepointInsert(table);
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

	/**
	 * PostgreSQL's conflict clause: the live record is only locked (as {@code INSERT ... DO NOTHING}
	 * would wait for an uncommitted one anyway), an expired one is overwritten in place. Keys in one statement are
	 * distinct, as {@code DO UPDATE} requires.
	 */
	private static final String TAKE_OVER_EXPIRED = " ON CONFLICT (namespace, idempotency_key) DO UPDATE SET"
			+ " status = EXCLUDED.status, lease_until = EXCLUDED.lease_until, created_at = EXCLUDED.created_at,"
			+ " expires_at = EXCLUDED.expires_at WHERE r.expires_at <= EXCLUDED.created_at";

	private final DatabasePlatform platform;

	JdbcIdempotencyDialect(DatabasePlatform platform) {
		this.platform = platform;
	}

	/**
	 * The database platform: how instants are bound to the table's timestamp columns.
	 * @return the platform
	 */
	public DatabasePlatform platform() {
		return this.platform;
	}

	/**
	 * Returns the statement that inserts a record into {@code table} unless its key is present.
	 */
	abstract ClaimStatement claimStatement(String table);

	/**
	 * Whether {@link #claimStatement} and {@link #insertAllIfAbsent} also claim a record whose
	 * retention has passed, so that zero affected rows always means a live duplicate.
	 */
	boolean insertTakesOverExpired() {
		return false;
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
	 * @throws IllegalStateException if the database's product name cannot be read
	 */
	public static JdbcIdempotencyDialect detect(DataSource dataSource) {
		return of(DatabasePlatform.detect(dataSource, "the idempotency store's SQL dialect"));
	}

	/**
	 * Picks the dialect of a Spring Boot database platform name ({@code postgresql}, {@code mysql},
	 * {@code mariadb}, {@code h2}, ...).
	 * @param platform the platform name
	 * @return the dialect, {@link #GENERIC} for platforms without a dedicated one
	 */
	public static JdbcIdempotencyDialect forPlatform(@Nullable String platform) {
		return of(DatabasePlatform.forName(platform));
	}

	/**
	 * The dialect of a database platform: one per platform.
	 * @param platform the platform
	 * @return the dialect
	 */
	public static JdbcIdempotencyDialect of(DatabasePlatform platform) {
		return switch (platform) {
			case POSTGRESQL -> POSTGRESQL;
			case MYSQL -> MYSQL;
			case MARIADB -> MARIADB;
			case GENERIC -> GENERIC;
		};
	}

	private static int purgeWithLimit(JdbcTemplate jdbc, String table, Object now, int batchSize) {
		return jdbc.update("DELETE FROM " + table + " WHERE expires_at <= ? ORDER BY expires_at LIMIT ?", now,
				batchSize);
	}

	/**
	 * PostgreSQL's multi-row claim, guarded as {@link ClaimStatement.GuardedUpsert} is: the keys whose
	 * live record the statement's snapshot sees never reach {@code DO UPDATE}, which would lock (and so
	 * write) their rows, so a batch of duplicates writes nothing and a mixed batch locks only the rows
	 * it inserts or takes over. The conflict clause still decides what the snapshot cannot see. Rows
	 * are inserted in the order given (the ordinal), which is what keeps batches sharing keys from
	 * deadlocking. Returns only the rows inserted or taken over.
	 * <p>
	 * The keys travel as two arrays, so the statement's text is the same for every batch size: the
	 * driver prepares it once on the server (after its fifth use) instead of sending, parsing and
	 * planning a new statement of two parameters per key for each batch.
	 */
	private static List<IdempotencyKey> insertAllGuarded(JdbcTemplate jdbc, String table, List<IdempotencyKey> keys,
			String status, Object createdAt, Object expiresAt) {
		String[] namespaces = new String[keys.size()];
		String[] values = new String[keys.size()];
		for (int i = 0; i < keys.size(); i++) {
			namespaces[i] = keys.get(i).namespace();
			values[i] = keys.get(i).value();
		}
		// A scalar subquery, not NOT EXISTS: the planner turns NOT EXISTS into an anti join, and on a
		// table without statistics (new, or truncated) it chose a hash anti join over a sequential scan
		// of the whole table for every batch. The subquery probes the primary key once per row.
		String sql = "INSERT INTO " + table + " AS r (namespace, idempotency_key, status, created_at, expires_at)"
				+ " SELECT v.namespace, v.idempotency_key, ?, ?, ?"
				+ " FROM unnest(CAST(? AS varchar[]), CAST(? AS varchar[])) WITH ORDINALITY"
				+ " AS v (namespace, idempotency_key, ordinal) WHERE (SELECT 1 FROM " + table + " live"
				+ " WHERE live.namespace = v.namespace AND live.idempotency_key = v.idempotency_key"
				+ " AND live.expires_at > ?) IS NULL ORDER BY v.ordinal" + TAKE_OVER_EXPIRED
				+ " RETURNING namespace, idempotency_key";
		return jdbc.query(sql, (rs, row) -> new IdempotencyKey(rs.getString(1), rs.getString(2)), status, createdAt,
				expiresAt, namespaces, values, createdAt);
	}

	/** MariaDB's multi-row {@code INSERT IGNORE}, whose {@code RETURNING} clause yields only the inserted rows. */
	private static List<IdempotencyKey> insertIgnoreAllReturning(JdbcTemplate jdbc, String table,
			List<IdempotencyKey> keys, String status, Object createdAt, Object expiresAt) {
		StringBuilder sql = new StringBuilder("INSERT IGNORE INTO ").append(table)
			.append(" (namespace, idempotency_key, status, created_at, expires_at) VALUES ");
		List<Object> args = new ArrayList<>(keys.size() * 5);
		for (int i = 0; i < keys.size(); i++) {
			sql.append((i > 0) ? ", (?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?)");
			args.addAll(List.of(keys.get(i).namespace(), keys.get(i).value(), status, createdAt, expiresAt));
		}
		sql.append(" RETURNING namespace, idempotency_key");
		return jdbc.query(sql.toString(), (rs, row) -> new IdempotencyKey(rs.getString(1), rs.getString(2)),
				args.toArray());
	}

}
