package dev.idempotency.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

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
 * {@link JdbcSchemaCheck} on the real PostgreSQL and MariaDB: the shipped tables pass; a dropped
 * column, a dropped index and, on MariaDB, a key collation that merges keys are named, and the
 * statements it names fix them.
 */
class JdbcSchemaCheckIntegrationTests {

	private final String table = "schema_check_" + UUID.randomUUID().toString().substring(0, 8);

	private HikariDataSource dataSource;

	@AfterEach
	void dropTable() {
		if (this.dataSource != null) {
			new JdbcTemplate(this.dataSource).execute("DROP TABLE IF EXISTS " + this.table);
			this.dataSource.close();
		}
	}

	@Test
	void postgresql() throws Exception {
		this.dataSource = TestDatabases.postgres();
		JdbcTemplate jdbc = createShipped("postgresql");
		assertThat(check(JdbcIdempotencyDialect.POSTGRESQL)).isEmpty();
		jdbc.execute("ALTER TABLE " + this.table + " DROP COLUMN result_body");
		jdbc.execute("DROP INDEX " + this.table + "_unfinished_idx");
		List<SchemaProblem> problems = check(JdbcIdempotencyDialect.POSTGRESQL);
		assertThat(problems).extracting(SchemaProblem::problem)
			.containsExactly("column result_body missing",
					"index " + this.table + "_unfinished_idx on [lease_until] missing");
		problems.forEach((problem) -> jdbc.execute(problem.fix()));
		assertThat(check(JdbcIdempotencyDialect.POSTGRESQL)).isEmpty();
	}

	@Test
	void mariaDb() throws Exception {
		this.dataSource = TestDatabases.mariaDb();
		JdbcTemplate jdbc = createShipped("mariadb");
		assertThat(check(JdbcIdempotencyDialect.MARIADB)).isEmpty();
		jdbc.execute("ALTER TABLE " + this.table + " DROP COLUMN attempts, DROP INDEX " + this.table
				+ "_expires_at_idx");
		List<SchemaProblem> problems = check(JdbcIdempotencyDialect.MARIADB);
		assertThat(problems).extracting(SchemaProblem::problem)
			.containsExactly("column attempts missing",
					"index " + this.table + "_expires_at_idx on [expires_at] missing");
		problems.forEach((problem) -> jdbc.execute(problem.fix()));
		assertThat(check(JdbcIdempotencyDialect.MARIADB)).isEmpty();
	}

	@Test
	void mariaDbKeyCollationThatMergesKeys() throws Exception {
		this.dataSource = TestDatabases.mariaDb();
		JdbcTemplate jdbc = createShipped("mariadb");
		for (String collation : new String[] { "utf8mb4_bin", "utf8mb4_general_ci" }) {
			jdbc.execute("ALTER TABLE " + this.table + " MODIFY idempotency_key VARCHAR(200) CHARACTER SET utf8mb4 "
					+ "COLLATE " + collation + " NOT NULL");
			List<SchemaProblem> problems = check(JdbcIdempotencyDialect.MARIADB);
			assertThat(problems).as(collation).singleElement().satisfies((problem) -> {
				assertThat(problem.problem()).contains("idempotency_key " + collation)
					.contains("the shipped collation is utf8mb4_nopad_bin");
				assertThat(problem.fix()).startsWith("ALTER TABLE " + this.table + " MODIFY namespace VARCHAR(200)");
			});
			jdbc.execute(problems.get(0).fix());
			assertThat(check(JdbcIdempotencyDialect.MARIADB)).as("after the fix of " + collation).isEmpty();
		}
	}

	private List<SchemaProblem> check(JdbcIdempotencyDialect dialect) throws SQLException {
		return new JdbcSchemaCheck(this.dataSource, dialect, this.table).check();
	}

	/** The shipped script of the platform, on this test's table. */
	private JdbcTemplate createShipped(String platform) throws Exception {
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		String script = StreamUtils
			.copyToString(new ClassPathResource("dev/idempotency/store/jdbc/schema-" + platform + ".sql").getInputStream(),
					StandardCharsets.UTF_8)
			.replace("idempotency_record", this.table);
		for (String statement : script.split(";")) {
			if (!statement.replaceAll("(?m)--.*$", "").isBlank()) {
				jdbc.execute(statement);
			}
		}
		return jdbc;
	}

}
