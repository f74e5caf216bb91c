package dev.idempotency.outbox.jdbc;

import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

import javax.sql.DataSource;

import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxRepository;
import dev.idempotency.outbox.OutboxStatus;
import dev.idempotency.support.jdbc.BatchedPurge;
import dev.idempotency.support.jdbc.SqlIdentifier;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;

/**
 * The outbox table on JDBC: inserts in the business transaction ({@link JdbcOutbox}), and the
 * {@link OutboxRepository} contract: claims for relays in short transactions of their own, marks,
 * re-drives and purges rows in single statements. The SQL that differs per database is the
 * {@link OutboxDialect}'s.
 * <p>
 * Every write other than {@link #insert} runs in a transaction of its own on this repository's
 * {@code DataSource} (a transaction manager of its own, never the application's, which may manage
 * another resource) and is committed before the method returns, whatever transaction the caller has
 * and whatever the pool's auto-commit setting: on a pool with auto-commit off, a statement that is
 * not committed is rolled back when its connection returns to the pool, and the row would stay as
 * it was. The counts these methods return are committed counts.
 * <p>
 * A row is <em>due</em> when it is {@code PENDING}, its {@code next_attempt_at} has passed and no
 * relay holds an unexpired lease on it ({@code claimed_until}). Every claim asks the table for due
 * rows afresh: there is no high-water mark on ids, so a transaction that took a lower id and
 * committed after a higher one is still found. With per-key ordering, a row is due only when every
 * row of its key with a lower id was sent.
 * <p>
 * Timestamps come from the given clock and are stored in UTC; the instances sharing a table should
 * keep their clocks in sync (NTP), as leases are compared with each relay's own clock.
 *
 * @since 0.1.0
 */
public class JdbcOutboxRepository implements OutboxRepository {

	/** Width of the destination and key columns in the shipped schemas. */
	public static final int MAX_DESTINATION_LENGTH = 255;

	/** Width of the key column in the shipped schemas. */
	public static final int MAX_KEY_LENGTH = 255;

	/**
	 * Width of the traceparent column in the shipped schemas (0.2).
	 * @since 0.2.0
	 */
	public static final int MAX_TRACEPARENT_LENGTH = 64;

	/** Width of the last-error column in the shipped schemas; longer messages are cut. */
	static final int MAX_ERROR_LENGTH = 2000;

	private final JdbcTemplate jdbc;

	private final TransactionTemplate claimTransactions;

	private final TransactionTemplate writeTransactions;

	private final OutboxDialect dialect;

	private final String table;

	private final JsonMapper jsonMapper;

	private final Clock clock;

	private final RowMapper<OutboxMessage> rowMapper;

	/**
	 * Creates a repository.
	 * @param dataSource the business database (inserts join its current transaction)
	 * @param dialect the database's dialect
	 * @param tableName the outbox table, a plain SQL identifier
	 * @param jsonMapper reads and writes the headers column
	 * @param clock the clock of timestamps, due times and leases
	 */
	public JdbcOutboxRepository(DataSource dataSource, OutboxDialect dialect, String tableName, JsonMapper jsonMapper,
			Clock clock) {
		Assert.notNull(dataSource, "dataSource must not be null");
		Assert.notNull(dialect, "dialect must not be null");
		this.jdbc = new JdbcTemplate(dataSource);
		// A manager of its own on exactly this DataSource: the application's (perhaps a @Primary JPA,
		// JTA or Kafka one) may not manage its connections. It commits whatever the pool's auto-commit.
		JdbcTransactionManager transactionManager = new JdbcTransactionManager(dataSource);
		this.claimTransactions = new TransactionTemplate(transactionManager);
		// No gap locks on MySQL: a claim must not block business transactions inserting rows.
		this.claimTransactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		this.claimTransactions.setTimeout(30);
		this.claimTransactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		// Marks, re-drives and purge batches commit on their own, never with a caller's transaction.
		this.writeTransactions = new TransactionTemplate(transactionManager);
		this.writeTransactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		this.writeTransactions.setTimeout(30);
		this.writeTransactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.dialect = dialect;
		this.table = SqlIdentifier.requireValid(tableName);
		this.jsonMapper = jsonMapper;
		this.clock = clock;
		this.rowMapper = new OutboxRowMapper(dialect, jsonMapper);
	}

	/**
	 * Inserts a {@code PENDING} row, due now, in the current transaction.
	 * @param messageId the unique message id
	 * @param destination where it goes
	 * @param key the message key, or {@code null}
	 * @param payload the serialized payload
	 * @param headers extra headers
	 * @throws IllegalTransactionStateException if the connection this repository gets is in
	 * auto-commit mode, i.e. it does not belong to a transaction of this {@code DataSource}
	 */
	public void insert(String messageId, String destination, @Nullable String key, String payload,
			Map<String, String> headers) {
		insert(messageId, destination, key, payload, headers, null);
	}

	/**
	 * Inserts a {@code PENDING} row, due now, in the current transaction, with the trace context of
	 * that transaction.
	 * @param messageId the unique message id
	 * @param destination where it goes
	 * @param key the message key, or {@code null}
	 * @param payload the serialized payload
	 * @param headers extra headers
	 * @param traceparent the W3C {@code traceparent} of the publishing span, or {@code null}
	 * @throws IllegalTransactionStateException if the connection this repository gets is in
	 * auto-commit mode, i.e. it does not belong to a transaction of this {@code DataSource}
	 * @since 0.2.0
	 */
	public void insert(String messageId, String destination, @Nullable String key, String payload,
			Map<String, String> headers, @Nullable String traceparent) {
		Object now = this.dialect.timestamp(now());
		String headersJson = headers.isEmpty() ? null : this.jsonMapper.writeValueAsString(headers);
		this.jdbc.execute((ConnectionCallback<Integer>) (connection) -> {
			if (connection.getAutoCommit()) {
				throw new IllegalTransactionStateException("The outbox row would commit on its own: the current "
						+ "transaction does not manage the outbox's DataSource (is it another DataSource's transaction "
						+ "manager?)");
			}
			return null;
		});
		this.jdbc.update("INSERT INTO " + this.table + " (message_id, destination, message_key, payload, headers, "
				+ "status, attempts, created_at, next_attempt_at, traceparent) "
				+ "VALUES (?, ?, ?, ?, ?, 'PENDING', 0, ?, ?, ?)",
				messageId, destination, key, payload, headersJson, now, now, traceparent);
	}

	@Override
	public List<OutboxMessage> claim(int batchSize, Duration lease, boolean orderedPerKey) {
		return markSentAndClaim(List.of(), batchSize, lease, orderedPerKey);
	}

	@Override
	public int markSent(List<OutboxMessage> rows) {
		if (rows.isEmpty()) {
			return 0;
		}
		Object now = this.dialect.timestamp(now());
		List<Long> ids = rows.stream().map(OutboxMessage::id).toList();
		return write(() -> this.dialect.markSent(this.jdbc, this.table, now, ids));
	}

	/**
	 * Marks the rows sent and claims the next batch in one short {@code READ COMMITTED} transaction,
	 * the claim transaction, committed once: the claim sees the marked rows as sent.
	 */
	@Override
	public List<OutboxMessage> markSentAndClaim(List<OutboxMessage> sent, int batchSize, Duration lease,
			boolean orderedPerKey) {
		Instant now = now();
		Instant leaseUntil = now.plus(lease);
		Object nowValue = this.dialect.timestamp(now);
		Object leaseValue = this.dialect.timestamp(leaseUntil);
		String dueRows = "o.status = 'PENDING' AND o.next_attempt_at <= ? AND (o.claimed_until IS NULL "
				+ "OR o.claimed_until <= ?)";
		if (orderedPerKey) {
			dueRows += " AND NOT EXISTS (SELECT 1 FROM " + this.table + " e WHERE e.message_key = o.message_key "
					+ "AND e.id < o.id AND e.status <> 'SENT')";
		}
		String due = dueRows;
		List<Long> sentIds = sent.stream().map(OutboxMessage::id).toList();
		List<OutboxMessage> claimed = this.claimTransactions.execute((status) -> {
			if (!sentIds.isEmpty()) {
				this.dialect.markSent(this.jdbc, this.table, nowValue, sentIds);
			}
			return this.dialect.claim(this.jdbc, this.table, due, nowValue, leaseValue, batchSize, this.rowMapper);
		});
		List<OutboxMessage> result = new ArrayList<>();
		if (claimed != null) {
			for (OutboxMessage row : claimed) {
				result.add(new OutboxMessage(row.id(), row.messageId(), row.destination(), row.key(), row.payload(),
						row.headers(), row.status(), row.attempts(), row.createdAt(), leaseUntil, row.lastError(),
						row.traceparent()));
			}
		}
		result.sort(Comparator.comparingLong(OutboxMessage::id));
		return result;
	}

	@Override
	public boolean markFailed(OutboxMessage row, OutboxStatus status, Instant nextAttemptAt, String error) {
		return markFailed(row, status, row.attempts() + 1, nextAttemptAt, error);
	}

	@Override
	public boolean reschedule(OutboxMessage row, Instant nextAttemptAt, String error) {
		return markFailed(row, OutboxStatus.PENDING, row.attempts(), nextAttemptAt, error);
	}

	private boolean markFailed(OutboxMessage row, OutboxStatus status, int attempts, Instant nextAttemptAt,
			String error) {
		Assert.state(row.claimedUntil() != null, "row must be claimed");
		String lastError = (error.length() > MAX_ERROR_LENGTH) ? error.substring(0, MAX_ERROR_LENGTH) : error;
		return write(() -> this.jdbc.update("UPDATE " + this.table + " SET status = ?, attempts = ?, "
				+ "next_attempt_at = ?, claimed_until = NULL, last_error = ? WHERE id = ? AND status = 'PENDING' "
				+ "AND claimed_until = ?", status.name(), attempts, this.dialect.timestamp(nextAttemptAt), lastError,
				row.id(), this.dialect.timestamp(row.claimedUntil()))) == 1;
	}

	@Override
	public int redriveDead() {
		Object now = this.dialect.timestamp(now());
		return write(() -> this.jdbc.update("UPDATE " + this.table + " SET status = 'PENDING', attempts = 0, next_attempt_at = ?, "
				+ "claimed_until = NULL WHERE status = 'DEAD'", now));
	}

	@Override
	public boolean redrive(String messageId) {
		Object now = this.dialect.timestamp(now());
		return write(() -> this.jdbc.update("UPDATE " + this.table + " SET status = 'PENDING', attempts = 0, next_attempt_at = ?, "
				+ "claimed_until = NULL WHERE status = 'DEAD' AND message_id = ?", now, messageId)) == 1;
	}

	@Override
	public List<OutboxMessage> findDead(int limit) {
		return this.jdbc.query((connection) -> {
			var select = connection.prepareStatement(
					"SELECT " + OutboxDialect.COLUMNS + " FROM " + this.table + " WHERE status = 'DEAD' ORDER BY id");
			select.setMaxRows(limit);
			return select;
		}, this.rowMapper);
	}

	@Override
	public @Nullable OutboxMessage find(String messageId) {
		List<OutboxMessage> rows = this.jdbc.query(
				"SELECT " + OutboxDialect.COLUMNS + " FROM " + this.table + " WHERE message_id = ?", this.rowMapper,
				messageId);
		return rows.isEmpty() ? null : rows.get(0);
	}

	@Override
	public int purgeSent(Duration retention, int batchSize, int maxBatches) {
		Assert.isTrue(batchSize >= 1, "batchSize must be at least 1");
		Assert.isTrue(maxBatches >= 1, "maxBatches must be at least 1");
		Object sentBefore = this.dialect.timestamp(now().minus(retention));
		return BatchedPurge.run(this.writeTransactions, batchSize, maxBatches,
				() -> this.dialect.purgeBatch(this.jdbc, this.table, sentBefore, batchSize));
	}

	@Override
	public Snapshot snapshot() {
		Instant now = now();
		long[] counts = new long[2];
		Instant[] oldest = new Instant[1];
		this.jdbc.query("SELECT status, COUNT(*) AS n, MIN(created_at) AS oldest FROM " + this.table
				+ " WHERE status IN ('PENDING', 'DEAD') GROUP BY status", (ResultSet rs) -> {
					String status = rs.getString("status");
					if ("PENDING".equals(status)) {
						counts[0] = rs.getLong("n");
						oldest[0] = this.dialect.instant(rs, "oldest");
					}
					else {
						counts[1] = rs.getLong("n");
					}
				});
		Duration age = (oldest[0] != null) ? Duration.between(oldest[0], now) : null;
		return new Snapshot(counts[0], counts[1], (age != null && age.isNegative()) ? Duration.ZERO : age);
	}

	/** Runs one write in a transaction of its own and returns its count once committed. */
	private int write(IntSupplier statement) {
		Integer count = this.writeTransactions.execute((status) -> statement.getAsInt());
		return (count != null) ? count : 0;
	}

	public OutboxDialect getDialect() {
		return this.dialect;
	}

	public String getTableName() {
		return this.table;
	}

	private Instant now() {
		// Microseconds: what the timestamp columns keep, so a lease reads back equal to what was written.
		return this.clock.instant().truncatedTo(ChronoUnit.MICROS);
	}

}
