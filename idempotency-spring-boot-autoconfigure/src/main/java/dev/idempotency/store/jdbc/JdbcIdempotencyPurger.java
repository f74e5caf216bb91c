package dev.idempotency.store.jdbc;

import java.time.Clock;

import dev.idempotency.support.SqlIdentifier;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.Assert;

/**
 * Deletes records whose retention has passed, in batches of bounded size, each its own short
 * statement outside any business transaction, so a large backlog never holds long locks. Several
 * instances may purge at once: each batch deletes only rows that are expired and still present
 * (PostgreSQL skips rows another purge has locked).
 *
 * @since 0.1.0
 */
public class JdbcIdempotencyPurger {

	private final JdbcTemplate jdbc;

	private final JdbcIdempotencyDialect dialect;

	private final String tableName;

	private final Clock clock;

	private final int batchSize;

	private final int maxBatches;

	/**
	 * Creates a purger.
	 * @param jdbc the template on the store's {@code DataSource}
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
		this.jdbc = jdbc;
		this.dialect = dialect;
		this.tableName = SqlIdentifier.requireValid(tableName);
		this.clock = clock;
		this.batchSize = batchSize;
		this.maxBatches = maxBatches;
	}

	/**
	 * Deletes expired records until a batch comes back short or the batch limit is reached.
	 * @return how many records were deleted
	 */
	public int purgeExpired() {
		Object now = this.dialect.timestamp(this.clock.instant());
		int total = 0;
		for (int batch = 0; batch < this.maxBatches; batch++) {
			int deleted = this.dialect.purgeBatch(this.jdbc, this.tableName, now, this.batchSize);
			total += deleted;
			if (deleted < this.batchSize) {
				break;
			}
		}
		return total;
	}

}
