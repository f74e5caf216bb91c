package dev.idempotency.integration;

import java.util.UUID;

class DuplicateAccountingH2IntegrationTests extends AbstractDuplicateAccountingIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return new String[] { "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"spring.datasource.username=sa" };
	}

	@Override
	protected String platform() {
		return "h2";
	}

}
