package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The JDBC store's key inspection on MariaDB.
 */
class MariaDbJdbcKeyInspectorIntegrationTests extends AbstractJdbcKeyInspectorTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

}
