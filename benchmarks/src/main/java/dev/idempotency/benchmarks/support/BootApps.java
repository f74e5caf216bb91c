package dev.idempotency.benchmarks.support;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts the nested Spring Boot applications of the benchmarks: no web server, no banner, warnings
 * only, the benchmark's pool settings and, where asked, the Redis server under test.
 */
public final class BootApps {

	private BootApps() {
	}

	/** The pool of {@code database} with {@code poolSize} connections, quiet logging. */
	public static Map<String, Object> properties(Database database, int poolSize) {
		Map<String, Object> properties = new LinkedHashMap<>(database.springProperties(poolSize));
		properties.put("spring.main.banner-mode", "off");
		properties.put("logging.level.root", "warn");
		return properties;
	}

	/**
	 * The connection to {@code database} with Spring Boot's default pool (no Hikari settings, auto-commit
	 * on, the database's default isolation), quiet logging.
	 */
	public static Map<String, Object> defaultPoolProperties(Database database) {
		Map<String, Object> properties = new LinkedHashMap<>(database.springDefaultProperties());
		properties.put("spring.main.banner-mode", "off");
		properties.put("logging.level.root", "warn");
		return properties;
	}

	/**
	 * The properties of variant {@code name}'s application on Spring Boot's default pool
	 * ({@link #defaultPoolProperties}): {@code bench.database}, the starter on for the variants whose
	 * name starts with {@code starter} (the others are applications without it: none of its beans), its
	 * JDBC store on the suites' dedup table, no schema initialization and no purge (it runs outside the
	 * measured path).
	 */
	public static Map<String, Object> variantProperties(Database database, String name) {
		Map<String, Object> properties = defaultPoolProperties(database);
		properties.put("bench.database", database.id());
		properties.put("idempotency.enabled", name.startsWith("starter"));
		properties.put("idempotency.jdbc.table-name", LedgerTables.DEDUP_TABLE);
		properties.put("idempotency.jdbc.initialize-schema", "never");
		properties.put("idempotency.jdbc.purge.enabled", "false");
		return properties;
	}

	/** Adds the Spring Data Redis connection to the server under test. */
	public static Map<String, Object> withRedis(Map<String, Object> properties) {
		properties.put("spring.data.redis.host", RedisConnections.host());
		properties.put("spring.data.redis.port", RedisConnections.port());
		properties.put("spring.data.redis.database", RedisConnections.database());
		return properties;
	}

	/** Runs the application made of {@code sources} with {@code properties}. */
	public static ConfigurableApplicationContext run(Map<String, Object> properties, Class<?>... sources) {
		return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE)
			.properties(properties)
			.logStartupInfo(false)
			.run();
	}

}
