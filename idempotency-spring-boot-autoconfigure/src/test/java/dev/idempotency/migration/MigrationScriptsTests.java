package dev.idempotency.migration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migration scripts as files: a shipped migration never changes (Flyway and Liquibase would
 * refuse every database that ran it), each database has the same versions, the upgrades run the
 * statements of the shipped {@code schema-upgrade-0.2-<platform>.sql} scripts, and MySQL's scripts
 * are MariaDB's but for the key collation (MySQL has no server here; its scripts run on MariaDB in
 * {@link FlywayMySqlScriptsOnMariaDbIntegrationTests}).
 */
class MigrationScriptsTests {

	private static final String FLYWAY = "dev/idempotency/migration/flyway/";

	/** CRC32 of each shipped migration: a new version adds files, it never edits these. */
	private static final Map<String, Long> SHIPPED = Map.ofEntries(
			Map.entry("h2/V0_1_0_1__idempotency_record.sql", 403974828L),
			Map.entry("h2/V0_1_0_2__idempotency_outbox.sql", 1533033230L),
			Map.entry("h2/V0_2_0_1__idempotency_record_0_2.sql", 2451625795L),
			Map.entry("h2/V0_2_0_2__idempotency_outbox_0_2.sql", 449737812L),
			Map.entry("mariadb/V0_1_0_1__idempotency_record.sql", 2405640783L),
			Map.entry("mariadb/V0_1_0_2__idempotency_outbox.sql", 3673126320L),
			Map.entry("mariadb/V0_2_0_1__idempotency_record_0_2.sql", 2423930121L),
			Map.entry("mariadb/V0_2_0_2__idempotency_outbox_0_2.sql", 4259272831L),
			Map.entry("mysql/V0_1_0_1__idempotency_record.sql", 933589846L),
			Map.entry("mysql/V0_1_0_2__idempotency_outbox.sql", 4183625048L),
			Map.entry("mysql/V0_2_0_1__idempotency_record_0_2.sql", 127021829L),
			Map.entry("mysql/V0_2_0_2__idempotency_outbox_0_2.sql", 665809135L),
			Map.entry("postgresql/V0_1_0_1__idempotency_record.sql", 403974828L),
			Map.entry("postgresql/V0_1_0_2__idempotency_outbox.sql", 3615580981L),
			Map.entry("postgresql/V0_2_0_1__idempotency_record_0_2.sql", 726604745L),
			Map.entry("postgresql/V0_2_0_2__idempotency_outbox_0_2.sql", 2472117566L));

	@Test
	void shippedMigrationsNeverChange() throws IOException {
		Map<String, Long> found = new TreeMap<>();
		for (Resource script : new PathMatchingResourcePatternResolver().getResources("classpath:" + FLYWAY + "*/*.sql")) {
			CRC32 crc = new CRC32();
			crc.update(script.getContentAsByteArray());
			String path = script.getURL().toString();
			found.put(path.substring(path.indexOf(FLYWAY) + FLYWAY.length()), crc.getValue());
		}
		assertThat(found).containsAllEntriesOf(SHIPPED);
		assertThat(found.keySet()).allSatisfy((path) -> assertThat(path).matches(
				"(postgresql|mysql|mariadb|h2)/V0_\\d+_\\d+_\\d+__idempotency_(record|outbox)\\w*\\.sql"));
	}

	@Test
	void mySqlCreatesTheTablesMariaDbCreatesButForTheKeyCollation() throws IOException {
		for (String script : List.of("V0_1_0_1__idempotency_record.sql", "V0_1_0_2__idempotency_outbox.sql")) {
			String mySql = read(FLYWAY + "mysql/" + script);
			assertThat(mySql).contains("utf8mb4_0900_bin").doesNotContain("nopad");
			assertThat(IsolatedDatabase.onMariaDb(mySql)).isEqualTo(read(FLYWAY + "mariadb/" + script));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "mariadb", "h2" })
	void upgradesRunTheShippedUpgradeScripts(String platform) throws IOException {
		assertThat(statements(read(FLYWAY + platform + "/V0_2_0_1__idempotency_record_0_2.sql")))
			.containsExactlyElementsOf(
					statements(read("dev/idempotency/store/jdbc/schema-upgrade-0.2-" + platform + ".sql")));
		assertThat(statements(read(FLYWAY + platform + "/V0_2_0_2__idempotency_outbox_0_2.sql")))
			.containsExactlyElementsOf(statements(read("dev/idempotency/outbox/schema-upgrade-0.2-" + platform + ".sql")));
	}

	/** MySQL has no IF NOT EXISTS: each statement of its upgrade script runs when its column or index is missing. */
	@Test
	void mySqlUpgradesRunTheShippedUpgradeScriptsWhereSomethingIsMissing() throws IOException {
		for (String[] pair : new String[][] {
				{ "V0_2_0_1__idempotency_record_0_2.sql", "dev/idempotency/store/jdbc/schema-upgrade-0.2-mysql.sql" },
				{ "V0_2_0_2__idempotency_outbox_0_2.sql", "dev/idempotency/outbox/schema-upgrade-0.2-mysql.sql" } }) {
			List<String> conditional = statements(read(FLYWAY + "mysql/" + pair[0])).stream()
				.filter((statement) -> statement.startsWith("SET @idempotency_ddl"))
				.map((statement) -> statement.replaceAll(".*\\) = 0, '(.*)', 'DO 0'\\)$", "$1"))
				.toList();
			assertThat(conditional).containsExactlyElementsOf(statements(read(pair[1])));
		}
	}

	private static String read(String path) throws IOException {
		return new ClassPathResource(path).getContentAsString(StandardCharsets.UTF_8);
	}

	/** The statements of a script, without comments, each on one line. */
	private static List<String> statements(String script) {
		return Arrays.stream(script.replaceAll("(?m)--.*$", "").split(";"))
			.map((statement) -> statement.replaceAll("\\s+", " ").trim())
			.filter((statement) -> !statement.isEmpty())
			.toList();
	}

}
