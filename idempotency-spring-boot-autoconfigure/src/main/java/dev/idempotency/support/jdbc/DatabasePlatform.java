package dev.idempotency.support.jdbc;

import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * The database family behind a {@code DataSource}, detected one way for the dedup store and the
 * outbox, and how instants are written to and read from its timestamp columns: always as UTC, so
 * that every instance stores and compares the same point in time whatever its JVM's time zone.
 * Each component then picks its own SQL for the platform.
 *
 * @since 0.1.0
 */
public enum DatabasePlatform {

	/**
	 * PostgreSQL: {@code TIMESTAMP WITH TIME ZONE} columns, bound as a {@code timestamptz} value in UTC
	 * (a pgjdbc {@code PGobject} where pgjdbc is the driver, else an {@link OffsetDateTime}).
	 */
	POSTGRESQL,

	/** MySQL 8: {@code DATETIME} columns holding UTC wall-clock time. */
	MYSQL,

	/**
	 * MariaDB: as {@link #MYSQL}, bound as the {@code DATETIME} literal text MariaDB Connector/J would
	 * send for a {@link LocalDateTime}; its SQL differs where MariaDB has more ({@code RETURNING}).
	 */
	MARIADB,

	/** Any other database (H2, HSQLDB, Oracle, SQL Server, ...): JDBC {@link Timestamp}s. */
	GENERIC;

	/**
	 * Converts an instant to the bind value of a timestamp column.
	 * @param instant the instant
	 * @return the bind value, never {@code null}
	 */
	public Object timestamp(Instant instant) {
		return switch (this) {
			case POSTGRESQL -> TimestampLiterals.postgres(instant);
			// DATETIME has no zone: store UTC wall-clock time, whatever the JVM's zone.
			case MARIADB -> TimestampLiterals.mariaDb(instant);
			case MYSQL -> utcDateTime(instant);
			case GENERIC -> Timestamp.from(instant);
		};
	}

	// Not LocalDateTime.ofInstant(instant, UTC): on Java 17 that asks ZoneOffset.UTC for its rules,
	// which builds a new ZoneRules (with a ConcurrentHashMap) on every call, several times per claim.
	static LocalDateTime utcDateTime(Instant instant) {
		return LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(), ZoneOffset.UTC);
	}

	/**
	 * Reads a timestamp column written with {@link #timestamp(Instant)}.
	 * @param rs the result set, on the current row
	 * @param column the column's label
	 * @return the instant, or {@code null} if the column is {@code NULL}
	 * @throws SQLException if the column cannot be read
	 */
	public @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
		return switch (this) {
			case POSTGRESQL -> {
				OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
				yield (value != null) ? value.toInstant() : null;
			}
			case MYSQL, MARIADB -> {
				LocalDateTime value = rs.getObject(column, LocalDateTime.class);
				yield (value != null) ? value.toInstant(ZoneOffset.UTC) : null;
			}
			case GENERIC -> {
				Timestamp value = rs.getTimestamp(column);
				yield (value != null) ? value.toInstant() : null;
			}
		};
	}

	/**
	 * Detects the platform of a database from its product name; opens one connection.
	 * @param dataSource the database
	 * @param purpose what the platform is chosen for, for the error message (e.g. {@code "the
	 * outbox's SQL dialect"})
	 * @return the platform, {@link #GENERIC} for databases without a dedicated one
	 * @throws IllegalStateException if the product name cannot be read
	 */
	public static DatabasePlatform detect(DataSource dataSource, String purpose) {
		try {
			return forName(JdbcUtils.commonDatabaseName(
					JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName)));
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException(
					"Could not read the database product name to choose " + purpose + "; is the database up?", ex);
		}
	}

	/**
	 * Picks the platform of a Spring Boot database platform name or a database product name
	 * ({@code postgresql}, {@code mysql}, {@code mariadb}, {@code h2}, ...). MariaDB is told apart
	 * from MySQL before MySQL is matched.
	 * @param name the name, or {@code null}
	 * @return the platform, {@link #GENERIC} for unknown names and {@code null}
	 */
	public static DatabasePlatform forName(@Nullable String name) {
		if (name == null) {
			return GENERIC;
		}
		String lowerCase = name.toLowerCase(Locale.ROOT);
		if (lowerCase.contains("postgres")) {
			return POSTGRESQL;
		}
		if (lowerCase.contains("mariadb")) {
			return MARIADB;
		}
		if (lowerCase.contains("mysql")) {
			return MYSQL;
		}
		return GENERIC;
	}

}
