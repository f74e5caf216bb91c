package dev.idempotency.autoconfigure;

import java.time.Duration;

/**
 * Background deletion of rows that are no longer needed, in bounded batches: expired records of the
 * dedup table ({@code idempotency.jdbc.purge}) and sent rows of the outbox
 * ({@code idempotency.outbox.purge}).
 *
 * @since 0.1.0
 */
public class IdempotencyPurgeProperties {

	/**
	 * Whether old rows (expired dedup records, sent outbox rows past their retention) are deleted by
	 * a background job.
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
