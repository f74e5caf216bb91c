package dev.idempotency.integration;

import dev.idempotency.testsupport.TestDatabases;

class DuplicateAccountingPostgresIntegrationTests extends AbstractDuplicateAccountingIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return TestDatabases.postgresProperties();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

}
