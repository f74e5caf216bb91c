package dev.idempotency.integration;

import dev.idempotency.testsupport.TestDatabases;

/**
 * Concurrent duplicate deliveries on Postgres.
 */
class IdempotentConcurrencyPostgresIntegrationTests extends AbstractIdempotentConcurrencyIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return TestDatabases.postgresProperties();
	}

}
