package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import javax.sql.DataSource;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.CompletedKeySource;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.core.StoreNotInTransactionException;
import dev.idempotency.support.jdbc.DatabasePlatform;
import dev.idempotency.support.jdbc.DatabasePlatformHolder;
import dev.idempotency.support.jdbc.SqlIdentifier;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.datasource.ConnectionHolder;
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
 * has not yet removed it, delete it and insert again; otherwise it is a duplicate. On PostgreSQL
 * the insert itself takes over an expired record ({@code ON CONFLICT ... DO UPDATE ... WHERE}), so
 * zero rows is always a duplicate and costs no second statement.</li>
 * </ol>
 * Keys and namespaces longer than {@value #MAX_KEY_LENGTH} characters, or starting with
 * {@code sha256:}, are stored as SHA-256 digests ({@link IdempotencyKey#digestedBeyond}). Timestamps come from the application's clock and are stored in UTC.
 * <p>
 * Fingerprints and results are columns of the record ({@code fingerprint}, {@code result_body}),
 * written by one {@code UPDATE} in the caller's transaction once the method returned
 * ({@link #recordDetails}), so they commit or roll back with the claim; a fingerprint clears any
 * result a taken-over expired record still held. Only methods that ask
 * for them touch these columns: a table created before 0.2.0 without them keeps working for the
 * others.
 * <p>
 * As an {@link IdempotencyKeyInspector} it reads and releases any record of the table, the leased
 * side's included (it needs the 0.2 columns). A release is one conditional {@code DELETE}: a
 * {@code PROCESSING} record under a lease that has not ended is not deleted unless forced. A
 * transactional claim whose transaction has not committed is invisible to it (PostgreSQL, H2), or
 * makes it wait for that transaction (MySQL, MariaDB lock the row).
 *
 * @since 0.1.0
 */
public class JdbcIdempotencyStore
		implements IdempotencyStore, CompletedKeySource, IdempotencyKeyInspector, DatabasePlatformHolder {

	/** Width of the namespace and key columns in the shipped schemas. */
	public static final int MAX_KEY_LENGTH = 200;

	/** Rows per multi-row insert of a batch; keeps bind parameters far below every driver's limit. */
	static final int MAX_ROWS_PER_STATEMENT = 1000;

	private static final Comparator<IdempotencyKey> KEY_ORDER = Comparator.comparing(IdempotencyKey::namespace)
		.thenComparing(IdempotencyKey::value);

	/** Status of a record inserted in the business transaction. */
	static final String COMPLETED = "COMPLETED";

	/** Statement timeout of {@link #probe()}, in seconds. */
	static final int PROBE_TIMEOUT_SECONDS = 5;

	private final JdbcTemplate jdbc;

	private final DataSource dataSource;

	private final JdbcIdempotencyDialect dialect;

	private final DatabasePlatform platform;

	private final String tableName;

	private final Clock clock;

	private final ClaimStatement claimStatement;

	private final String countExpiredSql;

	private final String deleteExpiredSql;

	private final String probeSql;

	private final JdbcCompletedKeys completedKeys;

	private final JdbcKeyRecords keyRecords;

	private final @Nullable JdbcLeasedIdempotencyStore leased;

	/**
	 * Creates a store without a leased mode.
	 * @param jdbc runs statements on the business {@code DataSource}, so that they join its transaction
	 * @param dialect the database's dialect
	 * @param tableName the dedup table, a plain SQL identifier
	 * @param clock the clock for created/expiry timestamps
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #JdbcIdempotencyStore(JdbcTemplate,
	 * JdbcIdempotencyDialect, String, Clock, JdbcLeasedIdempotencyStore)} with {@code null}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public JdbcIdempotencyStore(JdbcTemplate jdbc, JdbcIdempotencyDialect dialect, String tableName, Clock clock) {
		this(jdbc, dialect, tableName, clock, null);
	}

	/**
	 * Creates a store.
	 * @param jdbc runs statements on the business {@code DataSource}, so that they join its transaction
	 * @param dialect the database's dialect
	 * @param tableName the dedup table, a plain SQL identifier
	 * @param clock the clock for created/expiry timestamps
	 * @param leased the store that claims keys of the same table in leased mode, returned by
	 * {@link #leased()}; {@code null} for none
	 * @since 0.2.0
	 */
	public JdbcIdempotencyStore(JdbcTemplate jdbc, JdbcIdempotencyDialect dialect, String tableName, Clock clock,
			@Nullable JdbcLeasedIdempotencyStore leased) {
		Assert.notNull(jdbc, "jdbc must not be null");
		Assert.notNull(dialect, "dialect must not be null");
		this.jdbc = jdbc;
		this.dataSource = jdbc.getDataSource();
		Assert.notNull(this.dataSource, "jdbc must have a DataSource");
		this.dialect = dialect;
		this.platform = dialect.platform();
		this.tableName = SqlIdentifier.requireValid(tableName);
		this.clock = clock;
		this.claimStatement = dialect.claimStatement(this.tableName);
		String expiredRecord = " WHERE namespace = ? AND idempotency_key = ? AND expires_at <= ?";
		this.countExpiredSql = "SELECT COUNT(*) FROM " + this.tableName + expiredRecord;
		this.deleteExpiredSql = "DELETE FROM " + this.tableName + expiredRecord;
		this.probeSql = "SELECT COUNT(*) FROM " + this.tableName + " WHERE 1 = 0";
		this.completedKeys = new JdbcCompletedKeys(jdbc, this.platform, this.tableName);
		this.keyRecords = new JdbcKeyRecords(jdbc, this.platform, this.tableName, clock);
		Assert.isTrue(leased == null || this.tableName.equals(leased.getTableName()),
				() -> "The leased store must claim keys in the same table, " + this.tableName);
		this.leased = leased;
	}

	/**
	 * Claims the key in the current transaction.
	 * @throws StoreNotInTransactionException if this store's {@code DataSource} takes no part in the
	 * current transaction: the record would commit on its own, before the business writes
	 */
	@Override
	public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
		requireTransaction();
		IdempotencyKey stored = key.digestedBeyond(MAX_KEY_LENGTH);
		Instant now = this.clock.instant();
		Object createdAt = this.platform.timestamp(now);
		Object expiresAt = this.platform.timestamp(now.plus(retention));
		try {
			if (insert(stored, createdAt, expiresAt) == 1) {
				return ClaimResult.claimedInTransaction();
			}
			return claimPresent(stored, createdAt, expiresAt);
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not claim '" + key + "' in table " + this.tableName, ex);
		}
	}

	/**
	 * Claims a batch's keys with one multi-row insert-or-ignore where the dialect can tell which rows
	 * it inserted (PostgreSQL, MariaDB), else one by one; keys found present then take the path of
	 * {@link #claim} (an expired record is claimed again).
	 */
	@Override
	public List<ClaimResult> claimAll(List<IdempotencyKey> keys, Duration lease, Duration retention) {
		requireTransaction();
		List<IdempotencyKey> stored = keys.stream().map((key) -> key.digestedBeyond(MAX_KEY_LENGTH)).toList();
		Set<IdempotencyKey> distinct = new LinkedHashSet<>(stored);
		// One order for every batch: two batches sharing keys then wait for each other instead of
		// deadlocking on rows they inserted in opposite orders.
		List<IdempotencyKey> sorted = new ArrayList<>(distinct);
		sorted.sort(KEY_ORDER);
		Instant now = this.clock.instant();
		Object createdAt = this.platform.timestamp(now);
		Object expiresAt = this.platform.timestamp(now.plus(retention));
		try {
			Map<IdempotencyKey, ClaimResult> claims = claimSorted(sorted, createdAt, expiresAt);
			Set<IdempotencyKey> seen = new HashSet<>();
			List<ClaimResult> results = new ArrayList<>(keys.size());
			for (IdempotencyKey key : stored) {
				results.add(seen.add(key) ? claims.get(key) : ClaimResult.duplicate());
			}
			return results;
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not claim a batch of " + keys.size() + " keys in table "
					+ this.tableName, ex);
		}
	}

	private Map<IdempotencyKey, ClaimResult> claimSorted(List<IdempotencyKey> sorted, Object createdAt,
			Object expiresAt) {
		Map<IdempotencyKey, ClaimResult> claims = new HashMap<>();
		for (int from = 0; from < sorted.size(); from += MAX_ROWS_PER_STATEMENT) {
			List<IdempotencyKey> rows = sorted.subList(from, Math.min(sorted.size(), from + MAX_ROWS_PER_STATEMENT));
			List<IdempotencyKey> returned = this.dialect.insertAllIfAbsent(this.jdbc, this.tableName, rows, COMPLETED,
					createdAt, expiresAt);
			Set<IdempotencyKey> inserted = (returned != null) ? new HashSet<>(returned) : null;
			List<IdempotencyKey> present = new ArrayList<>();
			for (IdempotencyKey key : rows) {
				if ((inserted != null) ? inserted.contains(key) : insert(key, createdAt, expiresAt) == 1) {
					claims.put(key, ClaimResult.claimedInTransaction());
				}
				else {
					present.add(key);
				}
			}
			Set<IdempotencyKey> expired = expiredAmong(present, createdAt);
			for (IdempotencyKey key : present) {
				claims.put(key, (expired.contains(key) && takeOver(key, createdAt, expiresAt))
						? ClaimResult.claimedInTransaction() : ClaimResult.duplicate());
			}
		}
		return claims;
	}

	/**
	 * The keys among {@code present} whose records have expired, read with one plain (non-locking)
	 * statement per namespace: one expiry read per duplicate of a batch was one round trip per
	 * duplicate. None where the dialect's insert already took expired records over.
	 */
	private Set<IdempotencyKey> expiredAmong(List<IdempotencyKey> present, Object now) {
		if (present.isEmpty() || this.dialect.insertTakesOverExpired()) {
			return Set.of();
		}
		Map<String, List<String>> byNamespace = new LinkedHashMap<>();
		present.forEach((key) -> byNamespace.computeIfAbsent(key.namespace(), (ns) -> new ArrayList<>()).add(key.value()));
		Set<IdempotencyKey> expired = new HashSet<>();
		byNamespace.forEach((namespace, values) -> {
			String sql = "SELECT idempotency_key FROM " + this.tableName + " WHERE namespace = ? AND expires_at <= ?"
					+ " AND idempotency_key IN (" + String.join(", ", Collections.nCopies(values.size(), "?")) + ")";
			List<Object> args = new ArrayList<>(values.size() + 2);
			args.add(namespace);
			args.add(now);
			args.addAll(values);
			this.jdbc.query(sql, (RowCallbackHandler) (rs) -> expired.add(new IdempotencyKey(namespace, rs.getString(1))),
					args.toArray());
		});
		return expired;
	}

	/**
	 * Refuses to claim unless this store's {@code DataSource} takes part in the current transaction:
	 * a transaction manager that manages it (DataSource, JDBC or JPA transaction manager) binds its
	 * connection, with auto-commit off, when the transaction begins. Under any other transaction
	 * (Kafka-only, another DataSource's, JTA) the statement would run on a connection of its own and
	 * commit alone, so a failed message's record would survive the rollback.
	 */
	private void requireTransaction() {
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new StoreNotInTransactionException("JdbcIdempotencyStore claims keys inside the business "
					+ "transaction, but no transaction is active");
		}
		if (!(TransactionSynchronizationManager.getResource(this.dataSource) instanceof ConnectionHolder holder)
				|| autoCommits(holder)) {
			throw new StoreNotInTransactionException("JdbcIdempotencyStore's DataSource (" + this.dataSource
					+ ") takes no part in the current transaction '"
					+ TransactionSynchronizationManager.getCurrentTransactionName() + "': the claim would commit on "
					+ "its own. Run @Idempotent methods with a transaction manager that manages this DataSource "
					+ "(set idempotency.transaction-manager to the DataSource's transaction manager bean)");
		}
	}

	private static boolean autoCommits(ConnectionHolder holder) {
		try {
			return holder.getConnection().getAutoCommit();
		}
		catch (SQLException ex) {
			throw new IdempotencyStoreException("Could not read the transaction's connection state", ex);
		}
	}

	/** The key's record exists: claim it again if its retention has passed, else it is a duplicate. */
	private ClaimResult claimPresent(IdempotencyKey stored, Object createdAt, Object expiresAt) {
		if (this.dialect.insertTakesOverExpired()) {
			return ClaimResult.duplicate();
		}
		return (isExpired(stored, createdAt) && takeOver(stored, createdAt, expiresAt))
				? ClaimResult.claimedInTransaction() : ClaimResult.duplicate();
	}

	/** Replaces an expired record with a new claim; {@code false} if another claim took it over first. */
	private boolean takeOver(IdempotencyKey stored, Object createdAt, Object expiresAt) {
		return this.jdbc.update(this.deleteExpiredSql, stored.namespace(), stored.value(), createdAt) > 0
				&& insert(stored, createdAt, expiresAt) == 1;
	}

	private boolean isExpired(IdempotencyKey key, Object now) {
		// A plain read first: locking the live record for a DELETE that finds nothing to delete
		// would make concurrent duplicates deadlock on MySQL (shared lock upgraded to exclusive).
		Integer expired = this.jdbc.queryForObject(this.countExpiredSql, Integer.class, key.namespace(), key.value(),
				now);
		return expired != null && expired > 0;
	}

	private int insert(IdempotencyKey key, Object createdAt, Object expiresAt) {
		return this.claimStatement.execute(this.jdbc, key, COMPLETED, createdAt, expiresAt);
	}

	@Override
	public boolean isTransactional() {
		return true;
	}

	@Override
	public boolean recordsKeyDetails() {
		return true;
	}

	/**
	 * Writes the fingerprint to the record claimed in the current transaction (and clears its result).
	 * @throws StoreNotInTransactionException if this store's {@code DataSource} takes no part in the
	 * current transaction
	 */
	@Override
	public void recordFingerprint(IdempotencyKey key, ClaimResult claim, String fingerprint) {
		requireTransaction();
		this.keyRecords.recordFingerprint(key.digestedBeyond(MAX_KEY_LENGTH), fingerprint);
	}

	/**
	 * Writes the result to the record claimed in the current transaction.
	 * @throws StoreNotInTransactionException if this store's {@code DataSource} takes no part in the
	 * current transaction
	 */
	@Override
	public void recordResult(IdempotencyKey key, ClaimResult claim, String result) {
		requireTransaction();
		this.keyRecords.recordResult(key.digestedBeyond(MAX_KEY_LENGTH), result);
	}

	/**
	 * Writes the fingerprint and the result to the record claimed in the current transaction with one
	 * {@code UPDATE} (a {@code null} result clears one a taken-over expired record held).
	 * @throws StoreNotInTransactionException if this store's {@code DataSource} takes no part in the
	 * current transaction
	 */
	@Override
	public void recordDetails(IdempotencyKey key, ClaimResult claim, @Nullable String fingerprint,
			@Nullable String result) {
		requireTransaction();
		this.keyRecords.recordDetails(key.digestedBeyond(MAX_KEY_LENGTH), fingerprint, result);
	}

	/**
	 * Counts the duplicate on the key's record, in the current transaction (the duplicate's).
	 * @throws StoreNotInTransactionException if this store's {@code DataSource} takes no part in the
	 * current transaction
	 */
	@Override
	public void recordDuplicate(IdempotencyKey key) {
		requireTransaction();
		this.keyRecords.recordDuplicate(key.digestedBeyond(MAX_KEY_LENGTH));
	}

	/**
	 * Reads the record's fingerprint and result, in the current transaction if there is one.
	 */
	@Override
	public @Nullable RecordedKey recorded(IdempotencyKey key) {
		return this.keyRecords.recorded(key.digestedBeyond(MAX_KEY_LENGTH));
	}

	/**
	 * Reads the key's record, in the current transaction if there is one.
	 */
	@Override
	public @Nullable KeyRecord inspect(IdempotencyKey key) {
		return this.keyRecords.inspect(key.digestedBeyond(MAX_KEY_LENGTH));
	}

	/**
	 * Deletes the key's record unless it is {@code PROCESSING} under a lease that has not ended (or
	 * {@code force} is set), in the current transaction if there is one, else on its own.
	 */
	@Override
	public KeyRelease release(IdempotencyKey key, boolean force) {
		return this.keyRecords.release(key, key.digestedBeyond(MAX_KEY_LENGTH), force);
	}

	/**
	 * Queries the dedup table on a connection of its own, with a statement timeout of
	 * {@value #PROBE_TIMEOUT_SECONDS} seconds: the database answers and the table exists. Taking the
	 * connection can wait for the pool's connection timeout.
	 */
	@Override
	public void probe() {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.setQueryTimeout(PROBE_TIMEOUT_SECONDS);
			statement.executeQuery(this.probeSql).close();
		}
		catch (SQLException ex) {
			throw new IdempotencyStoreException("Table " + this.tableName + " cannot be queried", ex);
		}
	}

	/**
	 * Streams the completed keys created since {@code since}, page by page in primary-key order, on
	 * connections of their own (auto-commit, outside any business transaction).
	 */
	@Override
	public long forEachCompletedSince(Instant since, int pageSize, Consumer<IdempotencyKey> action) {
		return this.completedKeys.forEachCompletedSince(since, pageSize, action);
	}

	@Override
	public String name() {
		return "jdbc";
	}

	/**
	 * The leased store given at construction, on the same table: each of its steps commits on its
	 * own.
	 * @return the leased store, or {@code null} if none was given
	 */
	@Override
	public @Nullable JdbcLeasedIdempotencyStore leased() {
		return this.leased;
	}

	/**
	 * The store's {@code DataSource}: claims must run in its transaction.
	 */
	@Override
	public DataSource transactionalResource() {
		return this.dataSource;
	}

	public String getTableName() {
		return this.tableName;
	}

	public JdbcIdempotencyDialect getDialect() {
		return this.dialect;
	}

	/**
	 * The platform of the store's dialect, so that the transaction manager chosen for the store
	 * need not detect it again.
	 * @since 0.2.0
	 */
	@Override
	public DatabasePlatform getDatabasePlatform() {
		return this.platform;
	}

}
