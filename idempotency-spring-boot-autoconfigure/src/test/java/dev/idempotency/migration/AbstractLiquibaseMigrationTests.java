package dev.idempotency.migration;

import java.sql.Connection;
import java.util.List;

import liquibase.Contexts;
import liquibase.Liquibase;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Liquibase changelog, run by a real Liquibase from an application's master changelog that
 * includes it as {@code docs/jdbc-store.md} shows: changeSets whose work is done already (tables
 * created by {@code initialize-schema}) are marked as ran, the others run.
 */
abstract class AbstractLiquibaseMigrationTests extends AbstractMigrationTests {

	/** The application's master changelog: its own changeSet, then the include of the starter's. */
	static final String MASTER = "dev/idempotency/migration/application/liquibase/master.yaml";

	@Override
	@SuppressWarnings("deprecation") // the command API needs more set-up for the same update
	void migrate() throws Exception {
		try (Connection connection = this.database.dataSource().getConnection()) {
			Liquibase liquibase = new Liquibase(MASTER, new ClassLoaderResourceAccessor(),
					new JdbcConnection(connection));
			liquibase.update(new Contexts());
		}
	}

	@Override
	void assertHistory(Start start) {
		List<String> ran = this.database.jdbc()
			.query("SELECT ID, AUTHOR, FILENAME, EXECTYPE FROM DATABASECHANGELOG ORDER BY ORDEREXECUTED",
					(row, index) -> row.getString(1) + " " + row.getString(2) + " " + row.getString(3) + " "
							+ row.getString(4));
		String file = " idempotency-spring-boot-starter dev/idempotency/migration/liquibase/changelog.yaml ";
		String created = (start == Start.EMPTY) ? "EXECUTED" : "MARK_RAN";
		String upgraded = (start == Start.INITIALIZE_SCHEMA) ? "MARK_RAN" : "EXECUTED";
		assertThat(ran).containsExactly("app-orders application " + MASTER + " EXECUTED",
				"idempotency-record-0.1" + file + created, "idempotency-outbox-0.1" + file + created,
				"idempotency-record-0.2" + file + upgraded, "idempotency-outbox-0.2" + file + upgraded);
	}

}
