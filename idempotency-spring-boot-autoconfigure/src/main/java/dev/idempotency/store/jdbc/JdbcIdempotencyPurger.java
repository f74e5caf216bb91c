package dev.idempotency.store.jdbc;

import java.time.Clock;

import dev.idempotency.support.jdbc.BatchedPurge;
import dev.idempotency.support.jdbc.SqlIdentifier;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;

/**
 * Deletes records whose retention has passed, in batches of bounded size, each its own short
 * statement outside any business transaction, so a large backlog never holds long locks. Several
 * instances may purge at once: each batch deletes only rows that are expired and still present
 * (PostgreSQL skips rows another purge has locked).
 * <p>
 * Each batch runs in a transaction of its own on the store's {@code DataSource} and is committed
 * before the next starts, whatever the pool's auto-commit setting: a pool with auto-commit off
 * (Hikari rolls back what a connection did not commit when it returns to the pool) would otherwise
 * keep every row while the purge reported them deleted.
 *
 * @since 0.1.0
 */
public class JdbcIdempotencyPurger {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate batchTransactions;

	private final JdbcIdempotencyDialect dialect;

	private final String tableName;

	private final Clock clock;

	private final int batchSize;

	private final int maxBatches;

	/**
	 * Creates a purger.
	 * @param jdbc the template on the store's {@code DataSource}; its batches commit through a
	 * transaction manager of their own on that {@code DataSource}
	 * @param dialect the database's dialect
	 * @param tableName the dedup table
	 * @param clock the clock expiry is compared with
	 * @param batchSize rows deleted per statement, at least 1
	 * @param maxBatches statements per {@link #purgeExpired()} run, at least 1
	 */
	public JdbcIdempotencyPurger(JdbcTemplate jdbc, JdbcIdempotencyDialect dialect, String tableName, Clock clock,
			int batchSize, int maxBatches) {
		Assert.isTrue(batchSize >= 1, "batchSize must be at least 1");
		Assert.isTrue(maxBatches >= 1, "maxBatches must be at least 1");
		Assert.notNull(jdbc.getDataSource(), "jdbc must have a DataSource");
		this.jdbc = jdbc;
		// A transaction manager of its own on exactly the store's DataSource, rather than the
		// application's: a @Primary JPA, JTA or Kafka manager may not manage this DataSource's
		// connections at all. It also works whatever the pool's auto-commit (an explicit commit would
		// have to branch on it) and rolls back and releases the connection when a batch fails.
		// REQUIRES_NEW: a batch never joins a caller's transaction, so what it counts is committed.
		this.batchTransactions = new TransactionTemplate(new JdbcTransactionManager(jdbc.getDataSource()));
		this.batchTransactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.dialect = dialect;
		this.tableName = SqlIdentifier.requireValid(tableName);
		this.clock = clock;
		this.batchSize = batchSize;
		this.maxBatches = maxBatches;
	}

	/**
	 * Deletes expired records until a batch comes back short or the batch limit is reached, each
	 * batch in a transaction of its own that is committed before the next starts.
	 * @return how many records were deleted and committed
	 * @throws org.springframework.dao.DataAccessException if a batch fails or cannot commit; it is
	 * rolled back, and the batches before it stay deleted
	 */
	public int purgeExpired() {
		Object now = this.dialect.platform().timestamp(this.clock.instant());
		return BatchedPurge.run(this.batchTransactions, this.batchSize, this.maxBatches,
				() -> this.dialect.purgeBatch(this.jdbc, this.tableName, now, this.batchSize));
	}

}
