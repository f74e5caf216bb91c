package dev.idempotency.kafka;

import dev.idempotency.testsupport.TestDatabases;

/**
 * Transaction batching of record-style Kafka listeners on PostgreSQL.
 */
class KafkaTransactionBatchingPostgresIntegrationTests extends AbstractKafkaTransactionBatchingIntegrationTests {

	@Override
	String[] databaseProperties() {
		return TestDatabases.postgresProperties();
	}

}
