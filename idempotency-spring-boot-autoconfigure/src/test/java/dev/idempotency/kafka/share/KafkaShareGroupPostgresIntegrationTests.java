package dev.idempotency.kafka.share;

import dev.idempotency.testsupport.TestDatabases;

/**
 * The share-group guarantees with the JDBC store on PostgreSQL.
 */
class KafkaShareGroupPostgresIntegrationTests extends AbstractKafkaShareGroupIntegrationTests {

	@Override
	String[] databaseProperties() {
		return TestDatabases.postgresProperties();
	}

	@Override
	String shortTimeouts() {
		return "socketTimeout=5&connectTimeout=2";
	}

}
