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

	/**
	 * What start-up does when the dedup table differs from the shipped schema (missing table,
	 * column, unique key or index, or on MySQL and MariaDB a key collation that merges distinct
	 * keys): "fail" stops start-up and names the statement that fixes each difference, "warn" logs
	 * them, "off" does not look.
	 */
	private SchemaCheck schemaCheck = SchemaCheck.FAIL;

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

	public SchemaCheck getSchemaCheck() {
		return this.schemaCheck;
	}

	public void setSchemaCheck(SchemaCheck schemaCheck) {
		this.schemaCheck = schemaCheck;
	}

	public IdempotencyPurgeProperties getPurge() {
		return this.purge;
	}

	@Override
	public String getDefaultSchemaLocation() {
		return DEFAULT_SCHEMA_LOCATION;
	}

	/**
	 * What start-up does with differences between the dedup table and the shipped schema.
	 *
	 * @since 0.2.0
	 */
	public enum SchemaCheck {

		/** Stop start-up, naming each difference and the statement that fixes it. */
		FAIL,

		/** Log each difference and the statement that fixes it as a warning. */
		WARN,

		/** Do not look at the table. */
		OFF

	}

}
