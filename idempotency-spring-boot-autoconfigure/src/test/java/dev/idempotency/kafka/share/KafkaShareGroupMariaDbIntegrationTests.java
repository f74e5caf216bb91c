package dev.idempotency.kafka.share;

import dev.idempotency.testsupport.TestDatabases;

/**
 * The share-group guarantees with the JDBC store on MariaDB.
 */
class KafkaShareGroupMariaDbIntegrationTests extends AbstractKafkaShareGroupIntegrationTests {

	@Override
	String[] databaseProperties() {
		return TestDatabases.mariaDbProperties();
	}

	@Override
	String shortTimeouts() {
		return "socketTimeout=5000&connectTimeout=2000";
	}

}
