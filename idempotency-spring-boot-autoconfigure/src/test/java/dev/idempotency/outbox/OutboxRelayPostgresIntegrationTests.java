package dev.idempotency.outbox;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.testsupport.TestDatabases;

/**
 * The outbox on PostgreSQL.
 */
class OutboxRelayPostgresIntegrationTests extends AbstractOutboxRelayIntegrationTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

	@Override
	protected OutboxDialect expectedDialect() {
		return OutboxDialect.POSTGRESQL;
	}

}
