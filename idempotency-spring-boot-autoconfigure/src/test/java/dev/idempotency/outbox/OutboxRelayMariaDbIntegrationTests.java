package dev.idempotency.outbox;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The outbox on MariaDB (10.6 or later, for {@code SKIP LOCKED}).
 */
class OutboxRelayMariaDbIntegrationTests extends AbstractOutboxRelayIntegrationTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

	@Override
	protected OutboxDialect expectedDialect() {
		return OutboxDialect.MYSQL;
	}

}
