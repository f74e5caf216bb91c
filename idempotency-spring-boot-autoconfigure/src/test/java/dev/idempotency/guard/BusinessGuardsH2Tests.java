package dev.idempotency.guard;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.support.jdbc.DatabasePlatform;
import dev.idempotency.testsupport.TestDatabases;

/**
 * {@link BusinessGuards} on H2, which has no insert-or-ignore: the savepoint path.
 */
class BusinessGuardsH2Tests extends AbstractBusinessGuardsTests {

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.h2();
	}

	@Override
	protected DatabasePlatform expectedPlatform() {
		return DatabasePlatform.GENERIC;
	}

}
