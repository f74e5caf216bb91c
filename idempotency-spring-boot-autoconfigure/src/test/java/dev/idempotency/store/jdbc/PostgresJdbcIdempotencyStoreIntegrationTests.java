package dev.idempotency.store.jdbc;

import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC store contract on Postgres.
 */
class PostgresJdbcIdempotencyStoreIntegrationTests extends AbstractJdbcIdempotencyStoreContractTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

	@Override
	protected JdbcIdempotencyDialect expectedDialect() {
		return JdbcIdempotencyDialect.POSTGRESQL;
	}

	/**
	 * A skipped duplicate must not lock the live record: a lock gives its transaction an xid, a WAL
	 * record and a flushed commit (about 3% of throughput at 10% duplicates), and makes it wait for
	 * readers that lock the row.
	 */
	@Test
	void liveDuplicateWritesNothing() {
		claimAndSucceed(key("live"));
		Object transactionId = transactions().execute((status) -> {
			assertThat(store().claim(key("live"), LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
			return jdbc().queryForObject("SELECT txid_current_if_assigned()", Object.class);
		});
		assertThat(transactionId).as("xid of the duplicate's transaction").isNull();
	}

	/** The same for a batch: one multi-row claim, every key a live duplicate. */
	@Test
	void liveDuplicatesInABatchWriteNothing() {
		claimAllAndSucceed(List.of(key("batch-live-1"), key("batch-live-2")));
		Object transactionId = transactions().execute((status) -> {
			assertThat(store().claimAll(List.of(key("batch-live-2"), key("batch-live-1")), LEASE, RETENTION))
				.extracting(ClaimResult::status)
				.containsExactly(Status.DUPLICATE, Status.DUPLICATE);
			return jdbc().queryForObject("SELECT txid_current_if_assigned()", Object.class);
		});
		assertThat(transactionId).as("xid of the duplicates' transaction").isNull();
	}

	/** A batch mixing new keys and a live duplicate inserts the new ones and leaves the live record unlocked. */
	@Test
	void liveDuplicateInAMixedBatchIsNotLocked() {
		claimAndSucceed(key("mixed-live"));
		transactions().executeWithoutResult((status) -> {
			assertThat(store().claimAll(List.of(key("mixed-new"), key("mixed-live")), LEASE, RETENTION))
				.extracting(ClaimResult::status)
				.containsExactly(Status.CLAIMED, Status.DUPLICATE);
			Long ours = jdbc().queryForObject("SELECT txid_current() % 4294967296", Long.class);
			Long lockedBy = jdbc().queryForObject("SELECT xmax::text::bigint FROM idempotency_record"
					+ " WHERE idempotency_key = 'mixed-live'", Long.class);
			assertThat(lockedBy).as("xmax of the live record").isNotEqualTo(ours);
		});
	}

	/**
	 * The batch claim's guard probes the primary key row by row even on a table without statistics
	 * (new, or truncated): written as {@code NOT EXISTS}, PostgreSQL made it a hash anti join over a
	 * sequential scan of the whole table, for every batch.
	 */
	@Test
	void batchGuardDoesNotScanATableWithoutStatistics() {
		String table = "idempotency_plan_probe";
		jdbc().execute("DROP TABLE IF EXISTS " + table);
		jdbc().execute("CREATE TABLE " + table + " (LIKE idempotency_record INCLUDING ALL) WITH (autovacuum_enabled = false)");
		jdbc().update("INSERT INTO " + table + " (namespace, idempotency_key, status, created_at, expires_at)"
				+ " SELECT 'orders', 'old-' || g, 'COMPLETED', now(), now() + interval '1 day' FROM generate_series(1, 30000) g");
		JdbcIdempotencyStore store = new JdbcIdempotencyStore(jdbc(), JdbcIdempotencyDialect.POSTGRESQL, table,
				this.clock, null);
		List<IdempotencyKey> keys = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			keys.add(new IdempotencyKey("orders", (i % 10 == 0) ? "old-" + (i + 1) : "new-" + i));
		}
		try {
			Long scans = transactions().execute((status) -> {
				// The backend's own counters, not yet flushed: read before and after, on the same connection.
				long before = sequentialScans(table);
				assertThat(store.claimAll(keys, LEASE, RETENTION)).filteredOn(ClaimResult::isClaimed).hasSize(180);
				return sequentialScans(table) - before;
			});
			assertThat(scans).as("sequential scans of the table by the batch claim").isZero();
		}
		finally {
			jdbc().execute("DROP TABLE " + table);
		}
	}

	/**
	 * The batch claim's text does not depend on the batch's size, so the driver prepares it on the
	 * server after its fifth use: with one parameter pair per key, every size was a new statement,
	 * sent, parsed and planned for each batch.
	 */
	@Test
	void batchClaimIsOnePreparedStatementForEveryBatchSize() {
		Long prepared = transactions().execute((status) -> {
			for (int size = 2; size <= 8; size++) {
				List<IdempotencyKey> keys = new ArrayList<>();
				for (int i = 0; i < size; i++) {
					keys.add(key("sized-" + size + "-" + i));
				}
				assertThat(store().claimAll(keys, LEASE, RETENTION)).allMatch(ClaimResult::isClaimed);
			}
			// The session's server-side prepared statements, on the transaction's connection.
			return jdbc().queryForObject("SELECT count(*) FROM pg_prepared_statements"
					+ " WHERE statement LIKE 'INSERT INTO idempotency_record AS r%SELECT v.namespace%'", Long.class);
		});
		assertThat(prepared).as("server-side prepared batch claims").isEqualTo(1L);
	}

	private long sequentialScans(String table) {
		Long scans = jdbc().queryForObject("SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = ?",
				Long.class, table);
		return (scans != null) ? scans : 0L;
	}

}
