package dev.idempotency.migration;

/**
 * The Liquibase changelog on H2, in an in-memory database of their own.
 */
class LiquibaseH2MigrationTests extends AbstractLiquibaseMigrationTests {

	@Override
	IsolatedDatabase createDatabase() {
		return IsolatedDatabase.h2();
	}

}
