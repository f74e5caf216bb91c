package dev.idempotency.http;

import dev.idempotency.testsupport.TestDatabases;

/**
 * The HTTP transport on the JDBC store and MariaDB: transactional mode, the business row and the
 * key in one transaction.
 */
class HttpIdempotencyMariaDbIntegrationTests extends AbstractHttpIdempotencyJdbcIntegrationTests {

	@Override
	protected String[] storeProperties() {
		return TestDatabases.mariaDbProperties();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

}
