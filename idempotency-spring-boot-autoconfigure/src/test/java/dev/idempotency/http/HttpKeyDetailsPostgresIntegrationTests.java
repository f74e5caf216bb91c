package dev.idempotency.http;

import dev.idempotency.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Fingerprints and stored responses of HTTP requests on the JDBC store and PostgreSQL.
 */
class HttpKeyDetailsPostgresIntegrationTests extends AbstractHttpKeyDetailsJdbcIntegrationTests {

	@Override
	protected String[] storeProperties() {
		return TestDatabases.postgresProperties();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

	@Override
	protected int lockWaits(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
				+ " AND datname = current_database()", Integer.class);
	}

}
