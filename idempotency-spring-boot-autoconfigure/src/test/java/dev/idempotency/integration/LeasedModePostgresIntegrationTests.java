package dev.idempotency.integration;

import dev.idempotency.testsupport.TestDatabases;

class LeasedModePostgresIntegrationTests extends AbstractLeasedModeIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return TestDatabases.postgresProperties();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

}
