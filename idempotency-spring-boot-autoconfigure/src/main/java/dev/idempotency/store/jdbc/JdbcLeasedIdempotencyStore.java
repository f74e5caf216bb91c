package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.ParkedKey;
import dev.idempotency.core.ParkedKeys;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.core.UnfinishedClaim;
import dev.idempotency.core.UnfinishedClaims;
import dev.idempotency.support.jdbc.DatabasePlatform;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionException;
import org.springframework.util.Assert;

/**
 * Leased store on the dedup table of {@link JdbcIdempotencyStore}: a claim is a {@code PROCESSING}
 * record owned by a token until {@code lease_until}; completing it turns it {@code COMPLETED} for
 * the retention, releasing it deletes it. Every operation commits on its own, in a short
 * transaction of its own on the store's {@code DataSource}, never in a caller's transaction (a
 * Kafka transaction, or the business transaction on the same {@code DataSource}): a claim must be
 * visible to other consumers at once and must survive the business transaction's rollback.
 * <ol>
 * <li>{@link #claim}: insert the record unless present (the database's insert-or-ignore; elsewhere
 * a plain insert whose duplicate-key failure is caught, harmless in this store's own transaction).
 * One row means claimed. Otherwise a plain read classifies the record: completed and retained
 * (duplicate), parked, or held by an unexpired lease (in progress).</li>
 * <li>A completed record whose retention passed, or a claim whose lease ended (unless a reconciler
 * decides those), is taken over by one conditional {@code UPDATE} in a transaction of its own: of
 * any number of concurrent claimers exactly one updates the row. Running it apart from the insert
 * matters on MySQL and MariaDB, whose {@code INSERT IGNORE} keeps a shared lock on the present row
 * that two claimers' updates would deadlock on.</li>
 * <li>{@link #complete}, {@link #release} and {@link #renew} act only while the record still holds
 * the caller's token: a worker whose lease was taken over changes nothing.</li>
 * </ol>
 * The same table serves {@link UnfinishedClaims} (claims whose lease ended, for a reconciler) and
 * {@link ParkedKeys}. It needs the {@code owner_token} and {@code attempts} columns of the 0.2
 * schema ({@code schema-upgrade-0.2-<platform>.sql} adds them to an older table).
 * <p>
 * Fingerprints and results ({@code fingerprint}, {@code result_body}, also 0.2 columns, used only
 * by methods that ask for them) are written by the claim's owner, by token, each in a short
 * transaction of its own like the other steps; a fingerprint clears any result a taken-over record
 * still held.
 *
 * @since 0.2.0
 */
public class JdbcLeasedIdempotencyStore implements IdempotencyStore, UnfinishedClaims, ParkedKeys {

	private static final Log logger = LogFactory.getLog(JdbcLeasedIdempotencyStore.class);

	/** Claims of a key that another worker removed between our insert and read, before giving up. */
	private static final int MAX_CLAIM_ROUNDS = 3;

	/** A freshly inserted record, as opposed to one found present. */
	private static final Found INSERTED = new Found("", null, null);

	private final DataSource dataSource;

	private final LeasedTable table;

	private final JdbcTemplate jdbc;

	private final DatabasePlatform platform;

	private final String tableName;

	private final Clock clock;

	private final LeasedStatements sql;

	private final boolean takeOverEndedLeases;

	private final Set<String> reconciledNamespaces;

	private final JdbcLeasedKeyDetails keyDetails;

	private final JdbcUnfinishedClaims unfinishedClaims;

	private final JdbcParkedKeys parkedKeys;

	/**
	 * Creates a store.
	 * @param dataSource the database of the dedup table
	 * @param dialect the database's dialect
	 * @param tableName the dedup table, a plain SQL identifier
	 * @param clock the clock for leases and retention
	 * @param takeOverEndedLeases whether a claim takes over a claim whose lease ended; {@code false}
	 * when a reconciler decides those (they stay {@code IN_PROGRESS} until it has)
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #JdbcLeasedIdempotencyStore(DataSource,
	 * JdbcIdempotencyDialect, String, Clock, boolean, Collection)} with {@code List.of()}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public JdbcLeasedIdempotencyStore(DataSource dataSource, JdbcIdempotencyDialect dialect, String tableName,
			Clock clock, boolean takeOverEndedLeases) {
		this(dataSource, dialect, tableName, clock, takeOverEndedLeases, List.of());
	}

	/**
	 * Creates a store whose reconciler decides the ended claims of some namespaces only.
	 * @param dataSource the database of the dedup table
	 * @param dialect the database's dialect
	 * @param tableName the dedup table, a plain SQL identifier
	 * @param clock the clock for leases and retention
	 * @param takeOverEndedLeases whether a claim takes over a claim whose lease ended; {@code false}
	 * when a reconciler decides those (they stay {@code IN_PROGRESS} until it has)
	 * @param reconciledNamespaces with {@code takeOverEndedLeases} {@code false}, the namespaces whose
	 * ended claims the reconciler decides (the namespaces its scan is scoped to): a claim of another
	 * namespace takes over an ended lease, as without a reconciler, since no scan would ever offer it;
	 * empty for every namespace
	 * @since 0.2.0
	 */
	public JdbcLeasedIdempotencyStore(DataSource dataSource, JdbcIdempotencyDialect dialect, String tableName,
			Clock clock, boolean takeOverEndedLeases, Collection<String> reconciledNamespaces) {
		Assert.notNull(dataSource, "dataSource must not be null");
		Assert.notNull(dialect, "dialect must not be null");
		Assert.notNull(clock, "clock must not be null");
		this.dataSource = dataSource;
		this.table = new LeasedTable(dataSource, dialect.platform(), tableName, clock);
		this.jdbc = this.table.jdbc;
		this.platform = this.table.platform;
		this.tableName = this.table.name;
		this.clock = clock;
		this.sql = this.table.sql;
		this.takeOverEndedLeases = takeOverEndedLeases;
		this.reconciledNamespaces = Set.copyOf(JdbcUnfinishedClaims.scope(reconciledNamespaces));
		this.keyDetails = new JdbcLeasedKeyDetails(this.table);
		this.unfinishedClaims = new JdbcUnfinishedClaims(this.table);
		this.parkedKeys = new JdbcParkedKeys(this.table);
	}

	/**
	 * Claims the key under a lease, in a transaction of its own. A record that another worker
	 * deletes between this claim's insert and read is claimed again, a few times at most.
	 */
	@Override
	public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
		IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		try {
			for (int round = 0; round < MAX_CLAIM_ROUNDS; round++) {
				ClaimResult claim = tryClaim(stored, lease, retention);
				if (claim != null) {
					return claim;
				}
			}
			return ClaimResult.inProgress();
		}
		catch (DataAccessException | TransactionException ex) {
			throw new IdempotencyStoreException("Could not claim '" + key + "' in table " + this.tableName, ex);
		}
	}

	/** One round of {@link #claim}: {@code null} if the record vanished and the claim may be retried. */
	private @Nullable ClaimResult tryClaim(IdempotencyKey key, Duration lease, Duration retention) {
		Instant now = this.clock.instant();
		String token = this.table.tokens.get();
		Object createdAt = this.platform.timestamp(now);
		Object leaseUntil = this.platform.timestamp(now.plus(lease));
		Object expiresAt = this.platform.timestamp(now.plus(retention));
		Found found = this.table.inTransaction(
				(status) -> (insert(key, leaseUntil, createdAt, expiresAt, token) == 1) ? INSERTED : find(key));
		if (found == INSERTED) {
			return ClaimResult.claimed(token);
		}
		if (found == null) {
			return null;
		}
		switch (found.status()) {
			case LeasedStatements.COMPLETED:
				if (isAfter(found.expiresAt(), now)) {
					return ClaimResult.duplicate();
				}
				// Retention passed, not yet purged: 0 rows means another claimer took it or the purge
				// deleted it; the next round sees which.
				return (takeOver(this.sql.takeOverExpired, key, token, leaseUntil, createdAt, expiresAt) == 1)
						? ClaimResult.claimed(token) : null;
			case LeasedStatements.PARKED:
				return ClaimResult.parked();
			case LeasedStatements.PROCESSING:
				if (isAfter(found.leaseUntil(), now) || leftToTheReconciler(key)) {
					return ClaimResult.inProgress();
				}
				return (takeOver(this.sql.takeOverEnded, key, token, leaseUntil, createdAt, expiresAt) == 1)
						? ClaimResult.claimed(token) : ClaimResult.inProgress();
			default:
				throw new IllegalStateException("Unknown status '" + found.status() + "' of '" + key
						+ "' in table " + this.tableName);
		}
	}

	private int insert(IdempotencyKey key, Object leaseUntil, Object createdAt, Object expiresAt, String token) {
		try {
			return this.jdbc.update(this.sql.insert, key.namespace(), key.value(), leaseUntil, createdAt, expiresAt,
					token);
		}
		catch (DuplicateKeyException ex) {
			// Only the plain insert of databases without insert-or-ignore gets here. Caught in this
			// store's own transaction, which it leaves usable on those databases (not on PostgreSQL,
			// which has ON CONFLICT).
			if (!this.sql.insertFailsOnDuplicate) {
				throw ex;
			}
			return 0;
		}
	}

	private @Nullable Found find(IdempotencyKey key) {
		List<Found> rows = this.jdbc.query(this.sql.select,
				(rs, row) -> new Found(rs.getString("status"), this.platform.instant(rs, "lease_until"),
						this.platform.instant(rs, "expires_at")),
				key.namespace(), key.value());
		return rows.isEmpty() ? null : rows.get(0);
	}

	private int takeOver(String takeOverSql, IdempotencyKey key, String token, Object leaseUntil, Object createdAt,
			Object expiresAt) {
		try {
			Integer updated = this.table.inTransaction((status) -> this.jdbc.update(takeOverSql, token, leaseUntil,
					createdAt, expiresAt, key.namespace(), key.value(), createdAt));
			return (updated != null) ? updated : 0;
		}
		catch (PessimisticLockingFailureException ex) {
			// A deadlock with a reconciler's scan locking the same record (MySQL, MariaDB): this
			// update was rolled back, so the claim was not taken over.
			return 0;
		}
	}

	private boolean leftToTheReconciler(IdempotencyKey stored) {
		return !this.takeOverEndedLeases
				&& (this.reconciledNamespaces.isEmpty() || this.reconciledNamespaces.contains(stored.namespace()));
	}

	private static boolean isAfter(@Nullable Instant time, Instant now) {
		return time != null && time.isAfter(now);
	}

	/**
	 * Marks the key completed for {@code retention} if the record still holds this claim's token;
	 * a claim that was taken over in the meantime is logged and left alone.
	 */
	@Override
	public void complete(IdempotencyKey key, ClaimResult claim, Duration retention) {
		IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		if (this.table.completeByToken(stored, claim.token(), retention) == 0) {
			logger.warn("Could not mark '" + key + "' completed in table " + this.tableName + ": its lease ended "
					+ "and another worker or the reconciler took the claim over; the work may run again");
		}
	}

	/** Deletes the record if it is still this claim's. */
	@Override
	public void release(IdempotencyKey key, ClaimResult claim) {
		IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		this.table.update("release", stored, this.sql.release, stored.namespace(), stored.value(), claim.token());
	}

	@Override
	public boolean renew(IdempotencyKey key, ClaimResult claim, Duration lease) {
		IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		Object leaseUntil = this.platform.timestamp(this.clock.instant().plus(lease));
		return this.table.update("renew the lease of", stored, this.sql.renew, leaseUntil, stored.namespace(),
				stored.value(), claim.token()) == 1;
	}

	@Override
	public boolean isTransactional() {
		return false;
	}

	@Override
	public boolean recordsKeyDetails() {
		return true;
	}

	@Override
	public void recordFingerprint(IdempotencyKey key, ClaimResult claim, String fingerprint) {
		this.keyDetails.recordFingerprint(key, claim, fingerprint);
	}

	@Override
	public void recordResult(IdempotencyKey key, ClaimResult claim, String result) {
		this.keyDetails.recordResult(key, claim, result);
	}

	@Override
	public void recordDuplicate(IdempotencyKey key) {
		this.keyDetails.recordDuplicate(key);
	}

	@Override
	public @Nullable RecordedKey recorded(IdempotencyKey key) {
		return this.keyDetails.recorded(key);
	}

	/** None: claims commit on their own. */
	@Override
	public @Nullable Object transactionalResource() {
		return null;
	}

	/**
	 * Queries the leased columns of the dedup table on a connection of its own, with a statement
	 * timeout of {@value JdbcIdempotencyStore#PROBE_TIMEOUT_SECONDS} seconds: the database answers
	 * and the table has the 0.2 schema.
	 */
	@Override
	public void probe() {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.setQueryTimeout(JdbcIdempotencyStore.PROBE_TIMEOUT_SECONDS);
			statement.executeQuery(this.sql.probe).close();
		}
		catch (SQLException ex) {
			throw new IdempotencyStoreException("Table " + this.tableName + " cannot be queried for leased claims; "
					+ "if it was created by 0.1 it lacks the owner_token and attempts columns of 0.2: run "
					+ upgradeScript() + " (shipped with the starter next to the schema scripts)", ex);
		}
	}

	private String upgradeScript() {
		return "classpath:dev/idempotency/store/jdbc/schema-upgrade-0.2-" + switch (this.platform) {
			case POSTGRESQL -> "postgresql.sql";
			case MYSQL -> "mysql.sql";
			case MARIADB -> "mariadb.sql";
			case GENERIC -> "<platform>.sql (h2, or adapted to your database)";
		};
	}

	@Override
	public List<UnfinishedClaim> takeOver(int limit, Duration hold, Collection<String> namespaces) {
		return this.unfinishedClaims.takeOver(limit, hold, namespaces);
	}

	@Override
	public boolean settle(UnfinishedClaim claim, IdempotencyReconciler.Verdict verdict, Duration retention) {
		return this.unfinishedClaims.settle(claim, verdict, retention);
	}

	@Override
	public @Nullable Instant oldestUnfinished(Collection<String> namespaces) {
		return this.unfinishedClaims.oldestUnfinished(namespaces);
	}

	@Override
	public List<ParkedKey> parked(@Nullable String namespace, int limit) {
		return this.parkedKeys.parked(namespace, limit);
	}

	@Override
	public boolean markCompleted(IdempotencyKey key, Duration retention) {
		return this.parkedKeys.markCompleted(key, retention);
	}

	@Override
	public boolean release(IdempotencyKey key) {
		return this.parkedKeys.release(key);
	}

	@Override
	public String name() {
		return "jdbc";
	}

	/**
	 * The dedup table.
	 * @return the table's name
	 */
	public String getTableName() {
		return this.tableName;
	}

	/** The record a claim found present. */
	private record Found(String status, @Nullable Instant leaseUntil, @Nullable Instant expiresAt) {
	}

}
