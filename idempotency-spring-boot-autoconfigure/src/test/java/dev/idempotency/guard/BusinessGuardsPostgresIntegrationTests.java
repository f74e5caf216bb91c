package dev.idempotency.guard;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.support.jdbc.DatabasePlatform;
import dev.idempotency.testsupport.TestDatabases;

/**
 * {@link BusinessGuards} on PostgreSQL: {@code ON CONFLICT DO NOTHING}.
 */
class BusinessGuardsPostgresIntegrationTests extends AbstractBusinessGuardsTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	protected DatabasePlatform expectedPlatform() {
		return DatabasePlatform.POSTGRESQL;
	}

}
