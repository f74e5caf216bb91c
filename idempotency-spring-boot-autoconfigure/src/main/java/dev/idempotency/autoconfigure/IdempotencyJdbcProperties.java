package dev.idempotency.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
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

	private final Purge purge = new Purge();

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

	public Purge getPurge() {
		return this.purge;
	}

	@Override
	public String getDefaultSchemaLocation() {
		return DEFAULT_SCHEMA_LOCATION;
	}

	/**
	 * Deletion of expired records.
	 */
	public static class Purge {

		/**
		 * Whether expired records are deleted by a background job.
		 */
		private boolean enabled = true;

		/**
		 * Delay between the end of one purge run and the start of the next.
		 */
		private Duration interval = Duration.ofMinutes(10);

		/**
		 * Rows deleted per statement.
		 */
		private int batchSize = 1000;

		/**
		 * Statements per run; a larger backlog is left for the next run.
		 */
		private int maxBatchesPerRun = 100;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public int getMaxBatchesPerRun() {
			return this.maxBatchesPerRun;
		}

		public void setMaxBatchesPerRun(int maxBatchesPerRun) {
			this.maxBatchesPerRun = maxBatchesPerRun;
		}

	}

}
