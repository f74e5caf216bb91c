package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The leased JDBC store contract on PostgreSQL.
 */
class PostgresJdbcLeasedIdempotencyStoreIntegrationTests extends AbstractJdbcLeasedIdempotencyStoreContractTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

}
