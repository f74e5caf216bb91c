package dev.idempotency.store.jdbc;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC store contract on HSQLDB, through the generic savepoint dialect. The jar ships no
 * HSQLDB script: HSQLDB compares {@code VARCHAR} with PAD SPACE unless a column names a NO PAD
 * collation, and {@code CREATE COLLATION} has no {@code IF NOT EXISTS}, so a shipped script could
 * not be run twice. The table is created with the DDL {@code docs/jdbc-store.md} gives.
 */
class HsqldbJdbcIdempotencyStoreTests extends AbstractJdbcIdempotencyStoreContractTests {

	/** The HSQLDB DDL of {@code docs/jdbc-store.md}: {@code schema-h2.sql} plus a NO PAD collation. */
	static final String[] DOCUMENTED_DDL = { """
			CREATE COLLATION idempotency_no_pad FOR SQL_TEXT FROM SQL_TEXT NO PAD""", """
			CREATE TABLE idempotency_record (
				namespace VARCHAR(200) COLLATE idempotency_no_pad NOT NULL,
				idempotency_key VARCHAR(200) COLLATE idempotency_no_pad NOT NULL,
				status VARCHAR(16) NOT NULL,
				lease_until TIMESTAMP WITH TIME ZONE,
				created_at TIMESTAMP WITH TIME ZONE NOT NULL,
				expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
				owner_token VARCHAR(64),
				attempts INT DEFAULT 0 NOT NULL,
				fingerprint VARCHAR(64),
				result_body CLOB,
				duplicate_count INT DEFAULT 0 NOT NULL,
				last_duplicate_at TIMESTAMP WITH TIME ZONE,
				CONSTRAINT idempotency_record_pk PRIMARY KEY (namespace, idempotency_key)
			)""", """
			CREATE INDEX idempotency_record_expires_at_idx ON idempotency_record (expires_at)""", """
			CREATE INDEX idempotency_record_unfinished_idx ON idempotency_record (status, lease_until)""" };

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.hsqldb();
	}

	@Override
	protected String platform() {
		return "hsqldb";
	}

	@Override
	protected void createTable(DataSource dataSource) {
		new JdbcTemplate(dataSource).batchUpdate(DOCUMENTED_DDL);
	}

	@Override
	protected JdbcIdempotencyDialect expectedDialect() {
		return JdbcIdempotencyDialect.GENERIC;
	}

	@Test
	void hsqldbWithoutACollationComparesKeysWithPadSpace() {
		JdbcTemplate jdbc = jdbc();
		jdbc.execute("CREATE TABLE pad_space_default (k VARCHAR(20) PRIMARY KEY)");
		jdbc.update("INSERT INTO pad_space_default VALUES ('W-1')");
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM pad_space_default WHERE k = 'W-1 '", Integer.class))
			.as("why the documented DDL names a NO PAD collation")
			.isOne();
		jdbc.execute("DROP TABLE pad_space_default");
	}

}
