package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The JDBC store's key inspection on PostgreSQL.
 */
class PostgresJdbcKeyInspectorIntegrationTests extends AbstractJdbcKeyInspectorTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

}
