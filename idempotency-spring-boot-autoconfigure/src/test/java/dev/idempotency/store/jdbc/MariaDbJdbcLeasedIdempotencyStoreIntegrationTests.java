package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The leased JDBC store contract on MariaDB.
 */
class MariaDbJdbcLeasedIdempotencyStoreIntegrationTests extends AbstractJdbcLeasedIdempotencyStoreContractTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

}
