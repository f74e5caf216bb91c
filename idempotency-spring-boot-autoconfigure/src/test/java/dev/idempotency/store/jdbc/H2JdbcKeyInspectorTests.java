package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The JDBC store's key inspection on H2.
 */
class H2JdbcKeyInspectorTests extends AbstractJdbcKeyInspectorTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.h2();
	}

	@Override
	protected String platform() {
		return "h2";
	}

}
