package dev.idempotency.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import java.util.function.UnaryOperator;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.store.jdbc.JdbcSchemaCheck.SchemaProblem;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.StreamUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JdbcSchemaCheck} on H2: the shipped table passes, each difference is named, and the
 * statement it names fixes it (the check passes after running them).
 */
class JdbcSchemaCheckTests {

	private final HikariDataSource dataSource = TestDatabases.h2();

	private final JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);

	@AfterEach
	void close() {
		this.dataSource.close();
	}

	@Test
	void theShippedTablePasses() throws Exception {
		createShipped("idempotency_record");
		assertThat(check("idempotency_record")).isEmpty();
	}

	@Test
	void aMissingTableIsNamedWithTheScriptThatCreatesIt() throws Exception {
		List<SchemaProblem> problems = check("idempotency_record");
		assertThat(problems).singleElement().satisfies((problem) -> {
			assertThat(problem.problem()).contains("table idempotency_record not found");
			assertThat(problem.fix()).contains("classpath:dev/idempotency/store/jdbc/schema-h2.sql")
				.contains("idempotency.jdbc.initialize-schema=always");
		});
	}

	@Test
	void aTableOf01IsGivenTheUpgradeStatementsAndPassesAfterThem() throws Exception {
		this.jdbc.execute("CREATE TABLE dedup (namespace VARCHAR(200) NOT NULL, idempotency_key VARCHAR(200) NOT NULL, "
				+ "status VARCHAR(16) NOT NULL, lease_until TIMESTAMP WITH TIME ZONE, "
				+ "created_at TIMESTAMP WITH TIME ZONE NOT NULL, expires_at TIMESTAMP WITH TIME ZONE NOT NULL, "
				+ "CONSTRAINT dedup_pk PRIMARY KEY (namespace, idempotency_key))");
		this.jdbc.execute("CREATE INDEX dedup_expires_at_idx ON dedup (expires_at)");
		List<SchemaProblem> problems = check("dedup");
		assertThat(problems).extracting(SchemaProblem::problem)
			.containsExactly("column owner_token missing", "column attempts missing", "column fingerprint missing",
					"column result_body missing", "column duplicate_count missing", "column last_duplicate_at missing",
					"index dedup_unfinished_idx on [status, lease_until] missing");
		assertThat(problems.get(0).fix())
			.isEqualTo("ALTER TABLE dedup ADD COLUMN IF NOT EXISTS owner_token VARCHAR(64)");
		problems.forEach((problem) -> this.jdbc.execute(problem.fix()));
		assertThat(check("dedup")).isEmpty();
	}

	@Test
	void aTableWithoutTheUniqueKeyIsNamedAndFixed() throws Exception {
		createShipped("dedup", (script) -> script.replace(
				"CONSTRAINT dedup_pk PRIMARY KEY (namespace, idempotency_key)", "CONSTRAINT dedup_pk PRIMARY KEY (idempotency_key)"));
		List<SchemaProblem> problems = check("dedup");
		assertThat(problems).singleElement().satisfies((problem) -> {
			assertThat(problem.problem())
				.contains("no primary key or unique index on exactly (namespace, idempotency_key)");
			assertThat(problem.fix()).isEqualTo("ALTER TABLE dedup ADD PRIMARY KEY (namespace, idempotency_key)");
		});
		this.jdbc.execute("ALTER TABLE dedup DROP CONSTRAINT dedup_pk");
		this.jdbc.execute(problems.get(0).fix());
		assertThat(check("dedup")).isEmpty();
	}

	@Test
	void aUniqueIndexOnTheKeyServesAsWellAsThePrimaryKey() throws Exception {
		createShipped("dedup", (script) -> script
			.replace(",\n\tCONSTRAINT dedup_pk PRIMARY KEY (namespace, idempotency_key)", ""));
		this.jdbc.execute("CREATE UNIQUE INDEX dedup_key ON dedup (idempotency_key, namespace)");
		assertThat(check("dedup")).isEmpty();
	}

	@Test
	void collationsThatMergeKeysAreRefused() {
		assertThat(JdbcSchemaCheck.exactAndNoPad("utf8mb4_nopad_bin")).isTrue();
		assertThat(JdbcSchemaCheck.exactAndNoPad("utf8mb4_0900_bin")).isTrue();
		assertThat(JdbcSchemaCheck.exactAndNoPad("utf8mb4_0900_as_cs")).isTrue();
		assertThat(JdbcSchemaCheck.exactAndNoPad("binary")).isTrue();
		assertThat(JdbcSchemaCheck.exactAndNoPad("utf8mb4_bin")).as("PAD SPACE").isFalse();
		assertThat(JdbcSchemaCheck.exactAndNoPad("utf8mb4_general_ci")).as("case-insensitive").isFalse();
		assertThat(JdbcSchemaCheck.exactAndNoPad("utf8mb4_0900_ai_ci")).as("accent-insensitive").isFalse();
		assertThat(JdbcSchemaCheck.exactAndNoPad("utf8mb4_unicode_nopad_ci")).as("NO PAD, case-insensitive").isFalse();
	}

	private List<SchemaProblem> check(String table) throws SQLException {
		return new JdbcSchemaCheck(this.dataSource, JdbcIdempotencyDialect.GENERIC, table).check();
	}

	private void createShipped(String table) throws Exception {
		createShipped(table, UnaryOperator.identity());
	}

	private void createShipped(String table, UnaryOperator<String> edit) throws Exception {
		for (String statement : edit.apply(shippedScript(table)).split(";")) {
			if (!statement.replaceAll("(?m)--.*$", "").isBlank()) {
				this.jdbc.execute(statement);
			}
		}
	}

	/** The shipped H2 script, on another table name. */
	private String shippedScript(String table) throws Exception {
		return StreamUtils
			.copyToString(new ClassPathResource("dev/idempotency/store/jdbc/schema-h2.sql").getInputStream(),
					StandardCharsets.UTF_8)
			.replace("idempotency_record", table);
	}

}
