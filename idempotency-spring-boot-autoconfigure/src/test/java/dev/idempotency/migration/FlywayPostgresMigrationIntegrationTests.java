package dev.idempotency.migration;

/**
 * The Flyway migrations on PostgreSQL, in a schema of their own.
 */
class FlywayPostgresMigrationIntegrationTests extends AbstractFlywayMigrationTests {

	@Override
	IsolatedDatabase createDatabase() {
		return IsolatedDatabase.postgresql();
	}

}
