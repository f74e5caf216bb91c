package dev.idempotency.http;

import dev.idempotency.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Fingerprints and stored responses of HTTP requests on the JDBC store and MariaDB.
 */
class HttpKeyDetailsMariaDbIntegrationTests extends AbstractHttpKeyDetailsJdbcIntegrationTests {

	@Override
	protected String[] storeProperties() {
		return TestDatabases.mariaDbProperties();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

	@Override
	protected int lockWaits(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM information_schema.innodb_trx t"
				+ " JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id"
				+ " WHERE t.trx_state = 'LOCK WAIT' AND p.db = DATABASE()", Integer.class);
	}

}
