package dev.idempotency.store.jdbc.autoconfigure;

import dev.idempotency.autoconfigure.IdempotencyPurgeProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.jdbc.init.DatabaseInitializationProperties;

/**
 * Configuration of the JDBC store. Inherits {@code schema}, {@code platform},
 * {@code initialize-schema} and {@code continue-on-error} from Spring Boot's database
 * initialization support.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotency.jdbc")
public class IdempotencyJdbcProperties extends DatabaseInitializationProperties {

	/** Location of the schema scripts shipped in the jar, one per database platform. */
	public static final String DEFAULT_SCHEMA_LOCATION = "classpath:dev/idempotency/store/jdbc/schema-@@platform@@.sql";

	/**
	 * Name of the dedup table. The shipped schema scripts create "idempotency_record"; with another
	 * name, create the table yourself or point "schema" at your own script.
	 */
	private String tableName = "idempotency_record";

	@NestedConfigurationProperty
	private final IdempotencyPurgeProperties purge = new IdempotencyPurgeProperties();

	public IdempotencyJdbcProperties() {
		// A dedup table that failed to be created must stop start-up, not every later message.
		setContinueOnError(false);
	}

	public String getTableName() {
		return this.tableName;
	}

	public void setTableName(String tableName) {
		this.tableName = tableName;
	}

	public IdempotencyPurgeProperties getPurge() {
		return this.purge;
	}

	@Override
	public String getDefaultSchemaLocation() {
		return DEFAULT_SCHEMA_LOCATION;
	}

}
