package dev.idempotency.http;

import dev.idempotency.testsupport.TestDatabases;

/**
 * The HTTP transport on the JDBC store and PostgreSQL: transactional mode, the business row and
 * the key in one transaction.
 */
class HttpIdempotencyPostgresIntegrationTests extends AbstractHttpIdempotencyJdbcIntegrationTests {

	@Override
	protected String[] storeProperties() {
		return TestDatabases.postgresProperties();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

}
