package dev.idempotency.benchmarks.support;

import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The databases under test, their connection settings (overridable with system properties
 * {@code bench.<name>.url}, {@code .user}, {@code .password}) and the DDL of the benchmark's own
 * tables. Every variant gets the same pool settings; on MariaDB every variant runs at READ COMMITTED,
 * as docs/jdbc-store.md recommends. The exception is the variant that measures Spring Boot's defaults
 * ({@link #springDefaultProperties()}).
 */
public enum Database {

	POSTGRESQL("postgresql", "jdbc:postgresql://127.0.0.1:5432/test_bench", "postgres", "", null,
			"""
					CREATE TABLE IF NOT EXISTS bench_account (
						id INT PRIMARY KEY,
						balance BIGINT NOT NULL
					)""",
			"""
					CREATE TABLE IF NOT EXISTS bench_ledger (
						id BIGSERIAL PRIMARY KEY,
						msg_key VARCHAR(200) NOT NULL,
						account_id INT NOT NULL,
						amount BIGINT NOT NULL
					)""",
			"""
					CREATE TABLE IF NOT EXISTS INT_METADATA_STORE (
						METADATA_KEY VARCHAR(255) NOT NULL,
						METADATA_VALUE VARCHAR(4000),
						REGION VARCHAR(100) NOT NULL,
						CONSTRAINT INT_METADATA_STORE_PK PRIMARY KEY (METADATA_KEY, REGION)
					)"""),

	MARIADB("mariadb", "jdbc:mariadb://127.0.0.1:3306/test_bench", "root", "", "TRANSACTION_READ_COMMITTED",
			"""
					CREATE TABLE IF NOT EXISTS bench_account (
						id INT PRIMARY KEY,
						balance BIGINT NOT NULL
					) ENGINE = InnoDB""",
			"""
					CREATE TABLE IF NOT EXISTS bench_ledger (
						id BIGINT AUTO_INCREMENT PRIMARY KEY,
						msg_key VARCHAR(200) NOT NULL,
						account_id INT NOT NULL,
						amount BIGINT NOT NULL
					) ENGINE = InnoDB""",
			"""
					CREATE TABLE IF NOT EXISTS INT_METADATA_STORE (
						METADATA_KEY VARCHAR(255) NOT NULL,
						METADATA_VALUE VARCHAR(4000),
						REGION VARCHAR(100) NOT NULL,
						CONSTRAINT INT_METADATA_STORE_PK PRIMARY KEY (METADATA_KEY, REGION)
					) ENGINE = InnoDB""");

	private final String id;

	private final String defaultUrl;

	private final String defaultUser;

	private final String defaultPassword;

	private final String isolation;

	private final String[] ddl;

	Database(String id, String url, String user, String password, String isolation, String... ddl) {
		this.id = id;
		this.defaultUrl = url;
		this.defaultUser = user;
		this.defaultPassword = password;
		this.isolation = isolation;
		this.ddl = ddl;
	}

	/** Spring Boot's platform name, also the JMH parameter value. */
	public String id() {
		return this.id;
	}

	public static Database of(String id) {
		for (Database database : values()) {
			if (database.id.equalsIgnoreCase(id)) {
				return database;
			}
		}
		throw new IllegalArgumentException("Unknown database '" + id + "'; use postgresql or mariadb");
	}

	/** The product name, for reports. */
	public String productName() {
		return switch (this) {
			case POSTGRESQL -> "PostgreSQL";
			case MARIADB -> "MariaDB";
		};
	}

	public String url() {
		return System.getProperty("bench." + this.id + ".url", this.defaultUrl);
	}

	public String user() {
		return System.getProperty("bench." + this.id + ".user", this.defaultUser);
	}

	public String password() {
		return System.getProperty("bench." + this.id + ".password", this.defaultPassword);
	}

	/** Hikari's transaction isolation name, or {@code null} for the server default. */
	public String isolation() {
		return this.isolation;
	}

	public String[] ddl() {
		return this.ddl.clone();
	}

	/** The type of a generated {@code BIGINT} key column: {@code BIGSERIAL} or {@code BIGINT AUTO_INCREMENT}. */
	public String generatedKeyType() {
		return switch (this) {
			case POSTGRESQL -> "BIGSERIAL";
			case MARIADB -> "BIGINT AUTO_INCREMENT";
		};
	}

	/** What follows the column list of a {@code CREATE TABLE}: nothing, or {@code ENGINE = InnoDB}. */
	public String tableOptions() {
		return (this == MARIADB) ? " ENGINE = InnoDB" : "";
	}

	/**
	 * A row source of the whole numbers {@code from} to {@code to} in a column {@code seq}, for an
	 * {@code INSERT ... SELECT}: {@code generate_series} on PostgreSQL, the sequence engine's
	 * {@code seq_<from>_to_<to>} table on MariaDB.
	 */
	public String numbers(long from, long to) {
		return switch (this) {
			case POSTGRESQL -> "generate_series(" + from + ", " + to + ") AS numbers(seq)";
			case MARIADB -> "seq_" + from + "_to_" + to + " AS numbers";
		};
	}

	/** The statement that refreshes the optimizer's statistics of {@code table}. */
	public String analyze(String table) {
		return switch (this) {
			case POSTGRESQL -> "ANALYZE " + table;
			case MARIADB -> "ANALYZE TABLE " + table;
		};
	}

	/** The pool every hand-built variant uses; the starter's context gets the same settings. */
	public HikariDataSource newDataSource(int poolSize) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url());
		config.setUsername(user());
		config.setPassword(password());
		config.setMaximumPoolSize(poolSize);
		config.setMinimumIdle(poolSize);
		config.setPoolName("bench-" + this.id);
		if (this.isolation != null) {
			config.setTransactionIsolation(this.isolation);
		}
		return new HikariDataSource(config);
	}

	/**
	 * A pool given only the URL and credentials, as Spring Boot builds it for an application that tunes
	 * nothing: Hikari's defaults (10 connections, auto-commit on, the server's default isolation).
	 */
	public HikariDataSource newDefaultDataSource() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url());
		config.setUsername(user());
		config.setPassword(password());
		return new HikariDataSource(config);
	}

	/** The Spring Boot properties that build the same pool. */
	public Map<String, Object> springProperties(int poolSize) {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.datasource.url", url());
		properties.put("spring.datasource.username", user());
		properties.put("spring.datasource.password", password());
		properties.put("spring.datasource.hikari.maximum-pool-size", poolSize);
		properties.put("spring.datasource.hikari.minimum-idle", poolSize);
		properties.put("spring.datasource.hikari.pool-name", "bench-starter-" + this.id);
		if (this.isolation != null) {
			properties.put("spring.datasource.hikari.transaction-isolation", this.isolation);
		}
		return properties;
	}

	/**
	 * The Spring Boot properties of an application that tunes nothing: the URL and credentials only,
	 * so the pool is Boot's default Hikari pool (10 connections, auto-commit on) and the transactions
	 * run at the server's default isolation (REPEATABLE READ on MariaDB).
	 */
	public Map<String, Object> springDefaultProperties() {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.datasource.url", url());
		properties.put("spring.datasource.username", user());
		properties.put("spring.datasource.password", password());
		return properties;
	}

	/** The server's version string, for the report. */
	public String serverVersion() {
		try (HikariDataSource dataSource = newDataSource(1); Connection connection = dataSource.getConnection()) {
			return connection.getMetaData().getDatabaseProductName() + " "
					+ connection.getMetaData().getDatabaseProductVersion();
		}
		catch (Exception ex) {
			return "unreachable (" + ex.getMessage() + ")";
		}
	}

	public static boolean isReachable(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			return connection.isValid(5);
		}
		catch (Exception ex) {
			return false;
		}
	}

}
