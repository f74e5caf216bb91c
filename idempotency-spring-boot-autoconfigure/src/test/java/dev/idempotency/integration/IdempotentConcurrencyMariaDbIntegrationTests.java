package dev.idempotency.integration;

import dev.idempotency.testsupport.TestDatabases;

/**
 * Concurrent duplicate deliveries on MariaDb.
 */
class IdempotentConcurrencyMariaDbIntegrationTests extends AbstractIdempotentConcurrencyIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return TestDatabases.mariaDbProperties();
	}

}
