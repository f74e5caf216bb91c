package dev.idempotency.kafka.autoconfigure;

import java.time.Duration;

import dev.idempotency.autoconfigure.RetryProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Kafka adapter.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotency.kafka")
public class IdempotencyKafkaProperties {

	/**
	 * Whether Kafka listener containers bind each record to the delivery context and manual-ack
	 * listeners are acknowledged after commit.
	 */
	private boolean enabled = true;

	/**
	 * Start-up check of the dedup retention of each @Idempotent @KafkaListener against the
	 * retention.ms of the topics it reads: warn logs each method and topic whose dedup retention
	 * is shorter than the topic's retention plus retention-check-margin, fail stops start-up, off
	 * skips the check. A broker that does not answer within retention-check-timeout never fails
	 * start-up, in any mode.
	 */
	private RetentionCheck retentionCheck = RetentionCheck.WARN;

	/**
	 * How much longer than a topic's retention.ms the dedup retention must be. A record stays in
	 * its topic at least retention.ms after it was produced, and often longer: the broker deletes
	 * whole segments, once the newest record of a segment is older than retention.ms, so a record
	 * early in a segment lives up to segment.ms (7 days by default) more on a topic that rolls
	 * segments by time. A key expires its retention after the record was consumed, which is never
	 * earlier than it was produced. One day covers the broker's retention check interval, clock skew
	 * between producers, broker and store, and the segment tail of busy topics, which roll segments
	 * by size long before segment.ms; set it to the topic's segment.ms to cover the whole tail of a
	 * quiet topic.
	 */
	private Duration retentionCheckMargin = Duration.ofDays(1);

	/**
	 * Longest the retention check waits for the broker, in total; after it the check is skipped
	 * with a warning and start-up goes on.
	 */
	private Duration retentionCheckTimeout = Duration.ofSeconds(5);

	private final Retry retry = new Retry();

	private final DeadLetter deadLetter = new DeadLetter();

	private final TransactionBatching transactionBatching = new TransactionBatching();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public RetentionCheck getRetentionCheck() {
		return this.retentionCheck;
	}

	public void setRetentionCheck(RetentionCheck retentionCheck) {
		this.retentionCheck = retentionCheck;
	}

	public Duration getRetentionCheckMargin() {
		return this.retentionCheckMargin;
	}

	public void setRetentionCheckMargin(Duration retentionCheckMargin) {
		this.retentionCheckMargin = retentionCheckMargin;
	}

	public Duration getRetentionCheckTimeout() {
		return this.retentionCheckTimeout;
	}

	public void setRetentionCheckTimeout(Duration retentionCheckTimeout) {
		this.retentionCheckTimeout = retentionCheckTimeout;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	public TransactionBatching getTransactionBatching() {
		return this.transactionBatching;
	}

	/**
	 * What the start-up retention check does with a dedup retention shorter than a topic's
	 * retention plus the margin.
	 */
	public enum RetentionCheck {

		/** Logs one warning per method and topic, with both retentions and the fix. */
		WARN,

		/** Fails start-up with the same findings. */
		FAIL,

		/** Does not check. */
		OFF

	}

	/**
	 * Retries of a failing record, in the consumer, before it is dead-lettered: 3 deliveries, the
	 * first included, with a back-off from 1s doubling up to 10s (keep it well below
	 * max.poll.interval.ms).
	 */
	public static class Retry extends RetryProperties {

		public Retry() {
			super(3, Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10));
		}

	}

	/**
	 * Dead-letter topics.
	 */
	public static class DeadLetter {

		/**
		 * Suffix appended to a record's topic to name its dead-letter topic (spring-kafka's convention).
		 */
		private String suffix = ".DLT";

		public String getSuffix() {
			return this.suffix;
		}

		public void setSuffix(String suffix) {
			this.suffix = suffix;
		}

	}

	/**
	 * Transaction batching of record-style @Idempotent listeners.
	 */
	public static class TransactionBatching {

		/**
		 * Whether each poll of a record-style @Idempotent @KafkaListener (one message per call,
		 * returning void) runs in one transaction with one claim of all its keys and one offset
		 * commit, instead of one transaction per record. A failing record is rolled back alone
		 * (the poll runs again record by record) and retried or dead-lettered as a record. Not
		 * available with Kafka transactions or manual acknowledgement; @KafkaListener(batch =
		 * "false") keeps one listener record by record.
		 */
		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}
