package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The key details contract of the JDBC stores on MariaDb.
 */
class MariaDbJdbcKeyDetailsIntegrationTests extends AbstractJdbcKeyDetailsContractTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

}
