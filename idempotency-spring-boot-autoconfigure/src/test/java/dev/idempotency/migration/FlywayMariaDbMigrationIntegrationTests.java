package dev.idempotency.migration;

/**
 * The Flyway migrations on MariaDB, in a database of their own.
 */
class FlywayMariaDbMigrationIntegrationTests extends AbstractFlywayMigrationTests {

	@Override
	IsolatedDatabase createDatabase() {
		return IsolatedDatabase.mariaDb();
	}

}
