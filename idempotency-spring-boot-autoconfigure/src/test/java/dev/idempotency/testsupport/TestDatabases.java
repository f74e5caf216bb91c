package dev.idempotency.testsupport;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;

/**
 * Connections to the databases the integration tests run against: the local PostgreSQL and MariaDB
 * that {@code scripts/test.sh} makes sure are running (override with system properties
 * {@code idempotency.test.postgres.url} / {@code idempotency.test.mariadb.url} and their
 * {@code .username}), and in-memory H2 and HSQLDB.
 */
public final class TestDatabases {

	private TestDatabases() {
	}

	public static HikariDataSource postgres() {
		return pool(postgresUrl(), System.getProperty("idempotency.test.postgres.username", "postgres"));
	}

	public static HikariDataSource mariaDb() {
		return pool(System.getProperty("idempotency.test.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test"),
				System.getProperty("idempotency.test.mariadb.username", "root"));
	}

	public static HikariDataSource h2() {
		return pool("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa");
	}

	/** A fresh in-memory HSQLDB, with HSQLDB's default settings (2PL locking, PAD SPACE comparison). */
	public static HikariDataSource hsqldb() {
		return pool("jdbc:hsqldb:mem:" + UUID.randomUUID(), "SA");
	}

	/** The JDBC URL of {@link #postgres()}. */
	public static String postgresUrl() {
		return System.getProperty("idempotency.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
	}

	/** The JDBC URL and user of {@link #postgres()}, for Spring Boot properties. */
	public static String[] postgresProperties() {
		return new String[] { "spring.datasource.url=" + postgresUrl(),
				"spring.datasource.username=" + System.getProperty("idempotency.test.postgres.username", "postgres") };
	}

	/** The JDBC URL and user of {@link #mariaDb()}, for Spring Boot properties. */
	public static String[] mariaDbProperties() {
		return new String[] {
				"spring.datasource.url="
						+ System.getProperty("idempotency.test.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test"),
				"spring.datasource.username=" + System.getProperty("idempotency.test.mariadb.username", "root") };
	}

	private static HikariDataSource pool(String url, String username) {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(url);
		dataSource.setUsername(username);
		dataSource.setPassword("");
		dataSource.setMaximumPoolSize(24);
		dataSource.setConnectionTimeout(10_000);
		return dataSource;
	}

}
