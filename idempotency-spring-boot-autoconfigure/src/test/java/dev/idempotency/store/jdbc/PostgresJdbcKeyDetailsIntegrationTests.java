package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The key details contract of the JDBC stores on Postgres.
 */
class PostgresJdbcKeyDetailsIntegrationTests extends AbstractJdbcKeyDetailsContractTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

}
