package dev.idempotency.migration;

/**
 * The Liquibase changelog on MariaDB, in a database of their own.
 */
class LiquibaseMariaDbMigrationIntegrationTests extends AbstractLiquibaseMigrationTests {

	@Override
	IsolatedDatabase createDatabase() {
		return IsolatedDatabase.mariaDb();
	}

}
