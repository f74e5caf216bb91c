package dev.idempotency.migration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.testsupport.TestDatabases;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * A PostgreSQL schema, a MariaDB database or an H2 database of its own ({@code migr_<random>}), so
 * that the fixed table names of the migrations ({@code idempotency_record}, {@code idempotency_outbox},
 * {@code flyway_schema_history}, {@code databasechangelog}) never meet another test's. Dropped on
 * {@link #close()}.
 */
final class IsolatedDatabase implements AutoCloseable {

	/** {@code jdbc:<driver>://<authority>/<database>[?parameters]}. */
	private static final Pattern URL = Pattern.compile("(jdbc:[a-z]+://[^/]+/)([^?;]+)(.*)");

	private final String name;

	private final String url;

	private final String username;

	private final JdbcIdempotencyDialect dialect;

	private final Runnable drop;

	private final DataSource dataSource;

	/** Runs the MySQL scripts, with MySQL's key collation replaced by MariaDB's. */
	private boolean mySqlScripts;

	private IsolatedDatabase(String name, String url, String username, JdbcIdempotencyDialect dialect,
			Runnable drop) {
		this.name = name;
		this.url = url;
		this.username = username;
		this.dialect = dialect;
		this.drop = drop;
		this.dataSource = new DriverManagerDataSource(url, username, "");
	}

	static IsolatedDatabase postgresql() {
		String name = randomName();
		try (HikariDataSource admin = TestDatabases.postgres()) {
			new JdbcTemplate(admin).execute("CREATE SCHEMA " + name);
		}
		String base = TestDatabases.postgresUrl();
		String url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + name;
		return new IsolatedDatabase(name, url, "postgres", JdbcIdempotencyDialect.POSTGRESQL, () -> {
			try (HikariDataSource admin = TestDatabases.postgres()) {
				new JdbcTemplate(admin).execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
			}
		});
	}

	static IsolatedDatabase mariaDb() {
		String name = randomName();
		String base;
		try (HikariDataSource admin = TestDatabases.mariaDb()) {
			new JdbcTemplate(admin).execute("CREATE DATABASE " + name);
			base = admin.getJdbcUrl();
		}
		Matcher parts = URL.matcher(base);
		if (!parts.matches()) {
			throw new IllegalStateException("Unexpected MariaDB URL " + base);
		}
		return new IsolatedDatabase(name, parts.group(1) + name + parts.group(3), "root",
				JdbcIdempotencyDialect.MARIADB, () -> {
					try (HikariDataSource admin = TestDatabases.mariaDb()) {
						new JdbcTemplate(admin).execute("DROP DATABASE IF EXISTS " + name);
					}
				});
	}

	/**
	 * A MariaDB database on which {@link #createShipped()} and {@link #create01()} run the MySQL
	 * scripts, with {@code utf8mb4_0900_bin} (MySQL 8 only) replaced by {@code utf8mb4_nopad_bin}.
	 */
	static IsolatedDatabase mySqlScriptsOnMariaDb() {
		IsolatedDatabase database = mariaDb();
		database.mySqlScripts = true;
		return database;
	}

	/** A MySQL script with the MariaDB collation of the same meaning (binary, NO PAD). */
	static String onMariaDb(String mySqlScript) {
		return mySqlScript.replace("utf8mb4_0900_bin", "utf8mb4_nopad_bin");
	}

	static IsolatedDatabase h2() {
		String name = randomName();
		IsolatedDatabase[] database = new IsolatedDatabase[1];
		database[0] = new IsolatedDatabase(name, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa",
				JdbcIdempotencyDialect.GENERIC, () -> database[0].jdbc().execute("SHUTDOWN"));
		return database[0];
	}

	private static String randomName() {
		return "migr_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
	}

	/** Another isolated database on the same server (with MariaDB's own scripts). */
	IsolatedDatabase sibling() {
		return switch (this.dialect) {
			case POSTGRESQL -> postgresql();
			case MARIADB -> mariaDb();
			default -> h2();
		};
	}

	DataSource dataSource() {
		return this.dataSource;
	}

	JdbcTemplate jdbc() {
		return new JdbcTemplate(this.dataSource);
	}

	JdbcIdempotencyDialect dialect() {
		return this.dialect;
	}

	String name() {
		return this.name;
	}

	String url() {
		return this.url;
	}

	String username() {
		return this.username;
	}

	/** What Spring Boot puts for {@code {vendor}} in {@code spring.flyway.locations}: as it does, from the URL. */
	String vendor() {
		try (Connection connection = this.dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			return DatabaseDriver.fromJdbcUrl(metaData.getURL()).getId();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The platform suffix of the shipped scripts ({@code schema-<platform>.sql}). */
	String platform() {
		return switch (this.dialect) {
			case POSTGRESQL -> "postgresql";
			case MARIADB -> this.mySqlScripts ? "mysql" : "mariadb";
			case MYSQL -> "mysql";
			case GENERIC -> "h2";
		};
	}

	/** Runs a script from the class path, as Spring's database initialization does. */
	void run(String script) {
		Resource resource = new ClassPathResource(script);
		if (this.mySqlScripts) {
			try {
				resource = new ByteArrayResource(onMariaDb(resource.getContentAsString(StandardCharsets.UTF_8))
					.getBytes(StandardCharsets.UTF_8));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		new ResourceDatabasePopulator(resource).execute(this.dataSource);
	}

	/** Creates both tables as the starter's {@code initialize-schema} of this version does. */
	void createShipped() {
		run("dev/idempotency/store/jdbc/schema-" + platform() + ".sql");
		run("dev/idempotency/outbox/schema-" + platform() + ".sql");
	}

	/**
	 * Creates both tables as the starter's {@code initialize-schema} of 0.1 did, from the shipped 0.1
	 * Flyway migrations (the 0.1 scripts, frozen).
	 */
	void create01() {
		run("dev/idempotency/migration/flyway/" + platform() + "/V0_1_0_1__idempotency_record.sql");
		run("dev/idempotency/migration/flyway/" + platform() + "/V0_1_0_2__idempotency_outbox.sql");
	}

	/** A table name as the database stores it unquoted. */
	String stored(String table) {
		return (this.dialect == JdbcIdempotencyDialect.GENERIC) ? table.toUpperCase(Locale.ROOT) : table;
	}

	@Override
	public void close() {
		this.drop.run();
	}

}
