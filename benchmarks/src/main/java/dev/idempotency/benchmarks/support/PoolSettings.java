package dev.idempotency.benchmarks.support;

import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The connection pool a harness's variants run on ({@code --pool}): Spring Boot's default pool, what
 * an application that tunes nothing gets, or the benchmark's tuned pool of a given size.
 */
public enum PoolSettings {

	/** Spring Boot's default Hikari pool: 10 connections, auto-commit on, the server's isolation. */
	BOOT_DEFAULT("boot-default"),

	/** The benchmark's pool ({@link Database#newDataSource(int)}): sized to the consumers, all kept open. */
	TUNED("tuned");

	private final String id;

	PoolSettings(String id) {
		this.id = id;
	}

	public String id() {
		return this.id;
	}

	public static PoolSettings of(String id) {
		for (PoolSettings pool : values()) {
			if (pool.id.equalsIgnoreCase(id)) {
				return pool;
			}
		}
		throw new IllegalArgumentException("Unknown pool '" + id + "'; use boot-default or tuned");
	}

	/**
	 * The Spring Boot properties of a starter application's pool on {@code database}.
	 * @param tunedSize the number of connections of the tuned pool (ignored by Boot's default)
	 */
	public Map<String, Object> bootProperties(Database database, int tunedSize) {
		return switch (this) {
			case BOOT_DEFAULT -> BootApps.defaultPoolProperties(database);
			case TUNED -> BootApps.properties(database, tunedSize);
		};
	}

	/**
	 * The same pool for a hand-written variant: with Boot's default, a Hikari pool given only the URL
	 * and credentials, as Spring Boot builds it.
	 * @param tunedSize the number of connections of the tuned pool (ignored by Boot's default)
	 */
	public HikariDataSource newDataSource(Database database, int tunedSize) {
		return switch (this) {
			case BOOT_DEFAULT -> database.newDefaultDataSource();
			case TUNED -> database.newDataSource(tunedSize);
		};
	}

	/** The pool in the words of a report. */
	public String describe() {
		return switch (this) {
			case BOOT_DEFAULT -> "Spring Boot's default pool (10 connections, no Hikari settings)";
			case TUNED -> "the benchmark's tuned pool (sized to the consumers, every connection kept open)";
		};
	}

}
