package dev.idempotency.integration;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * Writes outside the caller's transaction on MariaDB, with auto-commit on and off.
 */
class OutOfTransactionWritesMariaDbIntegrationTests extends AbstractOutOfTransactionWritesIntegrationTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

}
