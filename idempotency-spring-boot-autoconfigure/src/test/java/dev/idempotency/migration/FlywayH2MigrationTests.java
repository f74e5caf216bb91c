package dev.idempotency.migration;

/**
 * The Flyway migrations on H2, in an in-memory database of their own.
 */
class FlywayH2MigrationTests extends AbstractFlywayMigrationTests {

	@Override
	IsolatedDatabase createDatabase() {
		return IsolatedDatabase.h2();
	}

}
