package dev.idempotency.store.jdbc;

import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC store contract on MariaDb.
 */
class MariaDbJdbcIdempotencyStoreIntegrationTests extends AbstractJdbcIdempotencyStoreContractTests {

	/** The migration {@code docs/jdbc-store.md} gives for a table created with {@code utf8mb4_bin}. */
	private static final String NO_PAD_MIGRATION = """
			ALTER TABLE idempotency_record_v1
				MODIFY namespace VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
				MODIFY idempotency_key VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL""";

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

	@Override
	protected JdbcIdempotencyDialect expectedDialect() {
		return JdbcIdempotencyDialect.MARIADB;
	}

	/**
	 * The duplicates of a batch are checked for expiry together: one plain read for the batch, where
	 * there was one per duplicate (a round trip each).
	 */
	@Test
	void duplicatesOfABatchAreReadOnce() {
		List<IdempotencyKey> keys = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			keys.add(key("read-once-" + i));
		}
		claimAllAndSucceed(keys);
		List<IdempotencyKey> again = new ArrayList<>(keys);
		again.add(key("read-once-new"));
		long selects = transactions().execute((status) -> {
			long before = selectsOfThisSession();
			assertThat(store().claimAll(again, LEASE, RETENTION)).filteredOn(ClaimResult::isClaimed).hasSize(1);
			return selectsOfThisSession() - before;
		});
		assertThat(selects).as("SELECT statements of the batch claim").isEqualTo(1);
	}

	/** {@code Com_select} of the transaction's connection (the status query itself is no SELECT). */
	private long selectsOfThisSession() {
		return jdbc().queryForObject("SHOW SESSION STATUS LIKE 'Com_select'", (rs, row) -> rs.getLong(2));
	}

	@Test
	void shippedSchemaComparesKeysWithANoPadCollation() {
		assertThat(jdbc().queryForList("SELECT COLLATION_NAME FROM information_schema.COLUMNS"
				+ " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_record'"
				+ " AND COLUMN_NAME IN ('namespace', 'idempotency_key')", String.class))
			.containsExactly("utf8mb4_nopad_bin", "utf8mb4_nopad_bin");
	}

	@Test
	void documentedMigrationMakesAnOldTableTellTrailingSpacesApartAndKeepsItsRecords() {
		JdbcTemplate jdbc = jdbc();
		jdbc.execute("DROP TABLE IF EXISTS idempotency_record_v1");
		try {
			jdbc.execute("""
					CREATE TABLE idempotency_record_v1 (
						namespace VARCHAR(200) NOT NULL,
						idempotency_key VARCHAR(200) NOT NULL,
						status VARCHAR(16) NOT NULL,
						lease_until DATETIME(6) NULL,
						created_at DATETIME(6) NOT NULL,
						expires_at DATETIME(6) NOT NULL,
						PRIMARY KEY (namespace, idempotency_key),
						INDEX idempotency_record_v1_expires_at_idx (expires_at)
					) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin""");
			JdbcIdempotencyStore old = new JdbcIdempotencyStore(jdbc, JdbcIdempotencyDialect.MARIADB,
					"idempotency_record_v1", this.clock, null);
			claim(old, key("M-1"));
			claim(old, key("M-2 "));
			assertThat(claim(old, key("M-1 "))).as("the PAD SPACE table merges 'M-1 ' into 'M-1'")
				.isEqualTo(Status.DUPLICATE);

			jdbc.execute(NO_PAD_MIGRATION);

			assertThat(claim(old, key("M-1"))).isEqualTo(Status.DUPLICATE);
			assertThat(claim(old, key("M-2 "))).isEqualTo(Status.DUPLICATE);
			assertThat(claim(old, key("M-1 "))).isEqualTo(Status.CLAIMED);
			assertThat(claim(old, key("M-2"))).isEqualTo(Status.CLAIMED);
			assertThat(jdbc.queryForList("SELECT idempotency_key FROM idempotency_record_v1 ORDER BY idempotency_key",
					String.class))
				.containsExactly("M-1", "M-1 ", "M-2", "M-2 ");
		}
		finally {
			jdbc.execute("DROP TABLE IF EXISTS idempotency_record_v1");
		}
	}

	private Status claim(JdbcIdempotencyStore store, IdempotencyKey key) {
		return transactions().execute((status) -> store.claim(key, LEASE, RETENTION)).status();
	}

}
