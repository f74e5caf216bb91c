package dev.idempotency.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariDataSource;

/**
 * Connections to the databases the integration tests run against: the local PostgreSQL and MariaDB
 * that {@code scripts/test.sh} makes sure are running (override with system properties
 * {@code idempotency.test.postgres.url} / {@code idempotency.test.mariadb.url} and their
 * {@code .username}), and in-memory H2 and HSQLDB.
 * <p>
 * When the integration tests run in several JVMs at once (Failsafe forks, which set the system
 * property {@code idempotency.test.fork} to {@code fork<n>}), each JVM gets databases of its own,
 * {@code <database>_fork<n>}, created on first use: the tests clean shared tables such as
 * {@code idempotency_outbox} as a whole, which must not reach another fork's rows.
 */
public final class TestDatabases {

	/** {@code jdbc:<driver>://<authority>/<database>[?parameters]}. */
	private static final Pattern URL = Pattern.compile("(jdbc:[a-z]+://[^/]+/)([^?;]+)(.*)");

	private TestDatabases() {
	}

	public static HikariDataSource postgres() {
		return pool(postgresUrl(), System.getProperty("idempotency.test.postgres.username", "postgres"));
	}

	public static HikariDataSource mariaDb() {
		return pool(MariaDb.URL, System.getProperty("idempotency.test.mariadb.username", "root"));
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
		return Postgres.URL;
	}

	/** The JDBC URL and user of {@link #postgres()}, for Spring Boot properties. */
	public static String[] postgresProperties() {
		return new String[] { "spring.datasource.url=" + postgresUrl(),
				"spring.datasource.username=" + System.getProperty("idempotency.test.postgres.username", "postgres") };
	}

	/** The JDBC URL and user of {@link #mariaDb()}, for Spring Boot properties. */
	public static String[] mariaDbProperties() {
		return new String[] {
				"spring.datasource.url=" + MariaDb.URL,
				"spring.datasource.username=" + System.getProperty("idempotency.test.mariadb.username", "root") };
	}

	/**
	 * {@code url} itself outside a fork; in fork {@code fork<n>}, the same URL on database
	 * {@code <database>_fork<n>}, created if missing through a connection to {@code adminDatabase}.
	 */
	private static String forkUrl(String url, String adminDatabase, String username) {
		String fork = System.getProperty("idempotency.test.fork", "");
		Matcher parts = URL.matcher(url);
		if (fork.isEmpty() || !parts.matches()) {
			return url;
		}
		String database = parts.group(2) + "_" + fork;
		try (Connection admin = DriverManager.getConnection(parts.group(1) + adminDatabase, username, "")) {
			if (url.startsWith("jdbc:postgresql:")) {
				// PostgreSQL has no CREATE DATABASE IF NOT EXISTS.
				try (PreparedStatement exists = admin.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
					exists.setString(1, database);
					try (ResultSet row = exists.executeQuery()) {
						if (!row.next()) {
							try (Statement create = admin.createStatement()) {
								create.execute("CREATE DATABASE \"" + database + "\"");
							}
						}
					}
				}
			}
			else {
				try (Statement create = admin.createStatement()) {
					create.execute("CREATE DATABASE IF NOT EXISTS `" + database + "`");
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot create the fork's database " + database + " next to " + url, ex);
		}
		return parts.group(1) + database + parts.group(3);
	}

	/** Resolved on first use only, so that the in-memory databases never touch a server. */
	private static final class Postgres {

		static final String URL = forkUrl(
				System.getProperty("idempotency.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test"),
				"postgres", System.getProperty("idempotency.test.postgres.username", "postgres"));

	}

	private static final class MariaDb {

		static final String URL = forkUrl(
				System.getProperty("idempotency.test.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test"), "",
				System.getProperty("idempotency.test.mariadb.username", "root"));

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
