package dev.idempotency.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;

import dev.idempotency.core.IdempotencyKey;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The statement of one database that inserts a dedup record unless its key is present, its text
 * fixed for one table. Each kind binds the record's values to its own parameters by name in
 * {@link #bind}, so that a statement that reads a value twice (PostgreSQL's guard) says so where it
 * binds it instead of reordering an argument array.
 * <p>
 * Not {@code NamedParameterJdbcTemplate}: it would build a parameter map, re-expand the SQL's
 * placeholders and copy the arguments on every claim, where binding directly costs one
 * {@code PreparedStatementSetter} per claim (fewer allocations than the varargs arrays it replaces).
 */
abstract class ClaimStatement {

	/** The record's columns and their five positional values, shared by every kind. */
	static final String COLUMNS_AND_VALUES = " (namespace, idempotency_key, status, created_at, expires_at)"
			+ " VALUES (?, ?, ?, ?, ?)";

	private final String sql;

	ClaimStatement(String sql) {
		this.sql = sql;
	}

	String sql() {
		return this.sql;
	}

	/**
	 * Inserts the record in the current transaction unless its key is present.
	 * @param jdbc runs on the business {@code DataSource}, joining its transaction
	 * @param key the stored key (already digested)
	 * @param status the record's status
	 * @param createdAt the creation time, as bound by the database platform
	 * @param expiresAt the end of retention, as bound by the database platform
	 * @return 1 if inserted (or an expired record taken over), 0 if the key was present
	 */
	int execute(JdbcTemplate jdbc, IdempotencyKey key, String status, Object createdAt, Object expiresAt) {
		return jdbc.update(this.sql, (ps) -> bind(ps, key, status, createdAt, expiresAt));
	}

	/** Sets every parameter of {@link #sql()}. */
	abstract void bind(PreparedStatement ps, IdempotencyKey key, String status, Object createdAt, Object expiresAt)
			throws SQLException;

	/** A plain or {@code INSERT IGNORE} insert: the five values in column order. */
	static void bindColumns(PreparedStatement ps, IdempotencyKey key, String status, Object createdAt,
			Object expiresAt) throws SQLException {
		ps.setString(1, key.namespace());
		ps.setString(2, key.value());
		ps.setString(3, status);
		ps.setObject(4, createdAt);
		ps.setObject(5, expiresAt);
	}

	/** MySQL and MariaDB: {@code INSERT IGNORE} leaves a present key alone (0 rows). */
	static final class InsertIgnore extends ClaimStatement {

		InsertIgnore(String table) {
			super("INSERT IGNORE INTO " + table + COLUMNS_AND_VALUES);
		}

		@Override
		void bind(PreparedStatement ps, IdempotencyKey key, String status, Object createdAt, Object expiresAt)
				throws SQLException {
			bindColumns(ps, key, status, createdAt, expiresAt);
		}

	}

	/**
	 * PostgreSQL: {@code INSERT ... SELECT ... WHERE NOT EXISTS (live record) ON CONFLICT DO UPDATE
	 * ... WHERE expired}: one statement inserts a new record or takes over an expired one (1 row) and
	 * leaves a live one alone (0 rows), so a duplicate costs no second round trip.
	 */
	static final class GuardedUpsert extends ClaimStatement {

		/*
		 * The NOT EXISTS guard keeps a committed live duplicate away from DO UPDATE, which would lock
		 * its row even when its WHERE is false: that gives the duplicate's transaction an xid, a WAL
		 * record and a flushed commit where a skipped message otherwise writes nothing. The conflict
		 * clause still decides every race the guard's snapshot cannot see (an uncommitted claim, a
		 * concurrent takeover).
		 */
		GuardedUpsert(String table, String takeOverExpired) {
			super("INSERT INTO " + table + " AS r (namespace, idempotency_key, status, created_at, expires_at)"
					+ " SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM " + table + " live"
					+ " WHERE live.namespace = ? AND live.idempotency_key = ? AND live.expires_at > ?)"
					+ takeOverExpired);
		}

		@Override
		void bind(PreparedStatement ps, IdempotencyKey key, String status, Object createdAt, Object expiresAt)
				throws SQLException {
			bindColumns(ps, key, status, createdAt, expiresAt);
			// The guard: a live record of the same key, live at the claim's created-at.
			ps.setString(6, key.namespace());
			ps.setString(7, key.value());
			ps.setObject(8, createdAt);
		}

	}

}
