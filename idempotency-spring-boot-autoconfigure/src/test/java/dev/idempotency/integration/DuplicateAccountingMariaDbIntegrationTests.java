package dev.idempotency.integration;

import dev.idempotency.testsupport.TestDatabases;

class DuplicateAccountingMariaDbIntegrationTests extends AbstractDuplicateAccountingIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return TestDatabases.mariaDbProperties();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

}
