package dev.idempotency.rabbit;

import dev.idempotency.testsupport.TestDatabases;

/**
 * The RabbitMQ adapter with the JDBC store on PostgreSQL.
 */
class RabbitListenerPostgresIntegrationTests extends AbstractRabbitListenerIntegrationTests {

	@Override
	protected String[] databaseProperties() {
		return TestDatabases.postgresProperties();
	}

}
