package dev.idempotency.integration;

import dev.idempotency.testsupport.TestDatabases;

/**
 * Lock-then-double-check mode with the JDBC store on Postgres.
 */
class RedissonLockConcurrencyPostgresIntegrationTests extends AbstractRedissonLockConcurrencyIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return TestDatabases.postgresProperties();
	}

}
