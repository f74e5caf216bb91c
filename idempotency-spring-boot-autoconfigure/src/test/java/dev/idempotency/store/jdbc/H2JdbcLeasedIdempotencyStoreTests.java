package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The leased JDBC store contract on H2.
 */
class H2JdbcLeasedIdempotencyStoreTests extends AbstractJdbcLeasedIdempotencyStoreContractTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.h2();
	}

	@Override
	protected String platform() {
		return "h2";
	}

}
