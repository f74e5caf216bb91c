package dev.idempotency.migration;

/**
 * The Liquibase changelog on PostgreSQL, in a schema of their own.
 */
class LiquibasePostgresMigrationIntegrationTests extends AbstractLiquibaseMigrationTests {

	@Override
	IsolatedDatabase createDatabase() {
		return IsolatedDatabase.postgresql();
	}

}
