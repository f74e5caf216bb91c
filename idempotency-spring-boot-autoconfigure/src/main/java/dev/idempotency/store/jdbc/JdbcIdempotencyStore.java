package dev.idempotency.store.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * Transactional store: {@link #claim} inserts {@code (namespace, key)} into the dedup table inside
 * the caller's transaction, so the record commits or rolls back with the business writes.
 * <ol>
 * <li>Insert unless present (the dialect's insert-or-ignore); one affected row means claimed. The
 * primary key decides races: a second claim of a key in flight waits for the first transaction and
 * then sees the record (duplicate) or, after a rollback, inserts it (claimed).</li>
 * <li>Zero rows: the record exists. If a plain read shows its retention has passed and the purge
 * has not yet removed it, delete it and insert again; otherwise it is a duplicate.</li>
 * </ol>
 * Keys and namespaces longer than {@value #MAX_KEY_LENGTH} characters are stored as SHA-256
 * digests. Timestamps come from the application's clock and are stored in UTC.
 *
 * @since 0.1.0
 */
public class JdbcIdempotencyStore implements IdempotencyStore {

	/** Width of the namespace and key columns in the shipped schemas. */
	public static final int MAX_KEY_LENGTH = 200;

	/** Status of a record inserted in the business transaction. */
	static final String COMPLETED = "COMPLETED";

	private final JdbcTemplate jdbc;

	private final JdbcIdempotencyDialect dialect;

	private final String tableName;

	private final Clock clock;

	private final String insertSql;

	private final String countExpiredSql;

	private final String deleteExpiredSql;

	/**
	 * Creates a store.
	 * @param jdbc runs statements on the business {@code DataSource}, so that they join its transaction
	 * @param dialect the database's dialect
	 * @param tableName the dedup table, a plain SQL identifier
	 * @param clock the clock for created/expiry timestamps
	 */
	public JdbcIdempotencyStore(JdbcTemplate jdbc, JdbcIdempotencyDialect dialect, String tableName, Clock clock) {
		Assert.notNull(jdbc, "jdbc must not be null");
		Assert.notNull(dialect, "dialect must not be null");
		this.jdbc = jdbc;
		this.dialect = dialect;
		this.tableName = SqlIdentifier.requireValid(tableName);
		this.clock = clock;
		this.insertSql = dialect.insertSql(this.tableName);
		String expiredRecord = " WHERE namespace = ? AND idempotency_key = ? AND expires_at <= ?";
		this.countExpiredSql = "SELECT COUNT(*) FROM " + this.tableName + expiredRecord;
		this.deleteExpiredSql = "DELETE FROM " + this.tableName + expiredRecord;
	}

	/**
	 * Claims the key in the current transaction.
	 * @throws IllegalStateException if no transaction is active: without one the record would
	 * commit on its own, before the business writes
	 */
	@Override
	public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalStateException("JdbcIdempotencyStore claims keys inside the business transaction, "
					+ "but no transaction is active");
		}
		IdempotencyKey stored = key.digestedBeyond(MAX_KEY_LENGTH);
		Instant now = this.clock.instant();
		Object createdAt = this.dialect.timestamp(now);
		Object expiresAt = this.dialect.timestamp(now.plus(retention));
		try {
			if (insert(stored, createdAt, expiresAt) == 1) {
				return ClaimResult.claimedInTransaction();
			}
			if (isExpired(stored, createdAt)
					&& this.jdbc.update(this.deleteExpiredSql, stored.namespace(), stored.value(), createdAt) > 0
					&& insert(stored, createdAt, expiresAt) == 1) {
				return ClaimResult.claimedInTransaction();
			}
			return ClaimResult.duplicate();
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not claim '" + key + "' in table " + this.tableName, ex);
		}
	}

	private boolean isExpired(IdempotencyKey key, Object now) {
		// A plain read first: locking the live record for a DELETE that finds nothing to delete
		// would make concurrent duplicates deadlock on MySQL (shared lock upgraded to exclusive).
		Integer expired = this.jdbc.queryForObject(this.countExpiredSql, Integer.class, key.namespace(), key.value(),
				now);
		return expired != null && expired > 0;
	}

	private int insert(IdempotencyKey key, Object createdAt, Object expiresAt) {
		return this.dialect.insertIfAbsent(this.jdbc, this.insertSql, key.namespace(), key.value(), COMPLETED,
				createdAt, expiresAt);
	}

	@Override
	public boolean isTransactional() {
		return true;
	}

	@Override
	public String name() {
		return "jdbc";
	}

	public String getTableName() {
		return this.tableName;
	}

	public JdbcIdempotencyDialect getDialect() {
		return this.dialect;
	}

}
