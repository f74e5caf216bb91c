package dev.idempotency.guard;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.support.jdbc.DatabasePlatform;
import dev.idempotency.testsupport.TestDatabases;

/**
 * {@link BusinessGuards} on MariaDB: {@code INSERT IGNORE} with its warnings checked, locking reads
 * under the default {@code REPEATABLE READ}.
 */
class BusinessGuardsMariaDbIntegrationTests extends AbstractBusinessGuardsTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	protected DatabasePlatform expectedPlatform() {
		return DatabasePlatform.MARIADB;
	}

}
