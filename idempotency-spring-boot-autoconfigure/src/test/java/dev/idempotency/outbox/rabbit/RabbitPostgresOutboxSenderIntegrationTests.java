package dev.idempotency.outbox.rabbit;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The RabbitMQ outbox sender with the outbox on PostgreSQL.
 */
class RabbitPostgresOutboxSenderIntegrationTests extends AbstractRabbitOutboxSenderIntegrationTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

}
