package dev.idempotency.migration;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;

import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcSchemaCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shipped migrations, run by a real Flyway or Liquibase: on a fresh database, on the tables 0.1
 * created (with rows in them) and on the tables the starter's own {@code initialize-schema} created,
 * the result is the schema the shipped {@code schema-<platform>.sql} scripts create, column for
 * column, index for index and, on MariaDB, collation for collation; rows are kept.
 */
abstract class AbstractMigrationTests {

	static final List<String> TABLES = List.of("idempotency_record", "idempotency_outbox");

	private static final Timestamp CREATED = Timestamp.from(Instant.parse("2026-11-01T10:00:00Z"));

	private static final Timestamp EXPIRES = Timestamp.from(Instant.parse("2026-11-08T10:00:00Z"));

	IsolatedDatabase database;

	private IsolatedDatabase shipped;

	/** Where the tables were before the migrations ran. */
	enum Start {

		EMPTY, VERSION_0_1, INITIALIZE_SCHEMA

	}

	abstract IsolatedDatabase createDatabase();

	/** Runs the starter's migrations as the documentation tells a user to. */
	abstract void migrate() throws Exception;

	/** Checks what the tool recorded in its history for a database that started as {@code start}. */
	abstract void assertHistory(Start start) throws Exception;

	@BeforeEach
	void createDatabases() {
		this.database = createDatabase();
	}

	@AfterEach
	void dropDatabases() {
		if (this.shipped != null) {
			this.shipped.close();
		}
		this.database.close();
	}

	@Test
	void freshDatabaseGetsTheShippedSchema() throws Exception {
		migrate();
		assertShippedSchema();
		assertHistory(Start.EMPTY);
		migrate();
		assertShippedSchema();
		assertHistory(Start.EMPTY);
	}

	@Test
	void tablesCreatedBy01AreUpgradedWithTheirRows() throws Exception {
		this.database.create01();
		insertRows();
		migrate();
		assertShippedSchema();
		assertRowsKept();
		assertHistory(Start.VERSION_0_1);
	}

	@Test
	void tablesCreatedByInitializeSchemaAreLeftAsTheyAre() throws Exception {
		this.database.createShipped();
		insertRows();
		migrate();
		assertShippedSchema();
		assertRowsKept();
		assertHistory(Start.INITIALIZE_SCHEMA);
	}

	/**
	 * The schema check of the starter finds nothing, and both tables are described exactly as the
	 * same tables created by the shipped scripts in another database.
	 */
	void assertShippedSchema() throws Exception {
		assertThat(new JdbcSchemaCheck(this.database.dataSource(), this.database.dialect(), "idempotency_record")
			.check()).isEmpty();
		if (this.shipped == null) {
			this.shipped = this.database.sibling();
			this.shipped.createShipped();
		}
		for (String table : TABLES) {
			List<String> migrated = TableShape.of(this.database, table);
			assertThat(migrated).as(table).isNotEmpty().containsExactlyElementsOf(TableShape.of(this.shipped, table));
		}
		if (this.database.dialect() == JdbcIdempotencyDialect.MARIADB) {
			assertThat(TableShape.of(this.database, "idempotency_record"))
				.anyMatch((line) -> line.startsWith("mariadb column namespace varchar(200) charset=utf8mb4 "
						+ "collation=utf8mb4_nopad_bin"))
				.anyMatch((line) -> line.startsWith("mariadb column idempotency_key varchar(200) charset=utf8mb4 "
						+ "collation=utf8mb4_nopad_bin"));
		}
	}

	/** Rows as 0.1 wrote them: two keys that differ only in case, and an outbox message. */
	void insertRows() {
		for (String key : new String[] { "k-1", "K-1" }) {
			this.database.jdbc()
				.update("INSERT INTO idempotency_record (namespace, idempotency_key, status, created_at, expires_at) "
						+ "VALUES (?, ?, ?, ?, ?)", "points", key, "COMPLETED", CREATED, EXPIRES);
		}
		this.database.jdbc()
			.update("INSERT INTO idempotency_outbox (message_id, destination, message_key, payload, headers, status, "
					+ "attempts, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
					"6f1c0e36-2b1a-4c1e-9a57-2d2f6b1e0c11", "orders", "o-1", "{\"id\":1}", "{}", "PENDING", 0, CREATED,
					CREATED);
	}

	void assertRowsKept() {
		List<String> records = this.database.jdbc()
			.query("SELECT idempotency_key, status, expires_at, attempts, duplicate_count, owner_token "
					+ "FROM idempotency_record WHERE namespace = 'points'",
					(row, index) -> row.getString(1) + " " + row.getString(2) + " " + row.getTimestamp(3).getTime() + " "
							+ row.getInt(4) + " " + row.getInt(5) + " " + row.getString(6));
		assertThat(records).containsExactlyInAnyOrder("k-1 COMPLETED " + EXPIRES.getTime() + " 0 0 null",
				"K-1 COMPLETED " + EXPIRES.getTime() + " 0 0 null");
		List<String> messages = this.database.jdbc()
			.query("SELECT message_id, payload, status, traceparent FROM idempotency_outbox",
					(row, index) -> row.getString(1) + " " + row.getString(2) + " " + row.getString(3) + " "
							+ row.getString(4));
		assertThat(messages).containsExactly("6f1c0e36-2b1a-4c1e-9a57-2d2f6b1e0c11 {\"id\":1} PENDING null");
	}

}
