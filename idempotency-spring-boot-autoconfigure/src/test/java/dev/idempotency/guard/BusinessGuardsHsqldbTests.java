package dev.idempotency.guard;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.support.jdbc.DatabasePlatform;
import dev.idempotency.testsupport.TestDatabases;

/**
 * {@link BusinessGuards} on HSQLDB (two-phase locking): the savepoint path on another database.
 */
class BusinessGuardsHsqldbTests extends AbstractBusinessGuardsTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.hsqldb();
	}

	@Override
	protected DatabasePlatform expectedPlatform() {
		return DatabasePlatform.GENERIC;
	}

}
