package dev.idempotency.integration;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * Writes outside the caller's transaction on PostgreSQL, with auto-commit on and off.
 */
class OutOfTransactionWritesPostgresIntegrationTests extends AbstractOutOfTransactionWritesIntegrationTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

}
