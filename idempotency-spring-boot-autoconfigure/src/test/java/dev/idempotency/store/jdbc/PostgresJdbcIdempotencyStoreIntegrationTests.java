package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
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

}
