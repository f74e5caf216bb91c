package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The key details contract of the JDBC stores on H2.
 */
class H2JdbcKeyDetailsTests extends AbstractJdbcKeyDetailsContractTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.h2();
	}

	@Override
	protected String platform() {
		return "h2";
	}

}
