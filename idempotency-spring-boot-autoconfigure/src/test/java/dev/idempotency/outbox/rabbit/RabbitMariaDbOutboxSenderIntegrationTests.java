package dev.idempotency.outbox.rabbit;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The RabbitMQ outbox sender with the outbox on MariaDB.
 */
class RabbitMariaDbOutboxSenderIntegrationTests extends AbstractRabbitOutboxSenderIntegrationTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

}
