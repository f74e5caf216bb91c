package dev.idempotency.kafka;

import dev.idempotency.testsupport.TestDatabases;

/**
 * Transaction batching of record-style Kafka listeners on MariaDB.
 */
class KafkaTransactionBatchingMariaDbIntegrationTests extends AbstractKafkaTransactionBatchingIntegrationTests {

	@Override
	String[] databaseProperties() {
		return TestDatabases.mariaDbProperties();
	}

}
