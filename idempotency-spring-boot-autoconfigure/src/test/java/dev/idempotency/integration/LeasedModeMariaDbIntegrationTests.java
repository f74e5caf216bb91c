package dev.idempotency.integration;

import dev.idempotency.testsupport.TestDatabases;

class LeasedModeMariaDbIntegrationTests extends AbstractLeasedModeIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return TestDatabases.mariaDbProperties();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

}
