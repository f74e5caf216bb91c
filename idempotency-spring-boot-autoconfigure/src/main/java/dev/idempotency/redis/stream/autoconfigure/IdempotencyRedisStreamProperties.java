package dev.idempotency.redis.stream.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Redis Stream adapter ({@code @RedisStreamListener}).
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotency.redis.stream")
public class IdempotencyRedisStreamProperties {

	/**
	 * Whether @RedisStreamListener methods are found and started.
	 */
	private boolean enabled = true;

	/**
	 * Consumers (threads) per listener in this instance, unless its annotation sets concurrency.
	 */
	private int concurrency = 1;

	/**
	 * Most entries one read returns (COUNT), and most entries one claim run takes per page. The
	 * entries of one read that are done are acknowledged with one XACK.
	 */
	private int batchSize = 10;

	/**
	 * How long one read blocks waiting for new entries (BLOCK). Keep it below the Redis client's
	 * command timeout.
	 */
	private Duration pollTimeout = Duration.ofSeconds(2);

	/**
	 * How long an entry stays pending (delivered, not acknowledged) without a consumer holding it
	 * before another consumer may claim and deliver it again: the retry delay after a failure, and how
	 * soon a stopped or crashed consumer's entries are taken over. A consumer keeps the entries it is
	 * still delivering fresh every quarter of it, so it need not exceed the slowest processing.
	 */
	private Duration minIdle = Duration.ofMinutes(1);

	/**
	 * How often pending entries are measured and those idle longer than min-idle are claimed
	 * (XAUTOCLAIM).
	 */
	private Duration claimInterval = Duration.ofSeconds(30);

	/**
	 * Deliveries of an entry, the first included, before it goes to the dead-letter stream.
	 */
	private int maxDeliveries = 3;

	/**
	 * Pause after a failed read (lost connection, missing consumer group) before the next one.
	 */
	private Duration recoveryBackOff = Duration.ofSeconds(1);

	/**
	 * Field of an entry holding the payload: the raw string for String parameters, JSON for other
	 * types.
	 */
	private String payloadField = "payload";

	private final DeadLetter deadLetter = new DeadLetter();

	private final TransactionBatching transactionBatching = new TransactionBatching();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(int concurrency) {
		this.concurrency = concurrency;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public Duration getPollTimeout() {
		return this.pollTimeout;
	}

	public void setPollTimeout(Duration pollTimeout) {
		this.pollTimeout = pollTimeout;
	}

	public Duration getMinIdle() {
		return this.minIdle;
	}

	public void setMinIdle(Duration minIdle) {
		this.minIdle = minIdle;
	}

	public Duration getClaimInterval() {
		return this.claimInterval;
	}

	public void setClaimInterval(Duration claimInterval) {
		this.claimInterval = claimInterval;
	}

	public int getMaxDeliveries() {
		return this.maxDeliveries;
	}

	public void setMaxDeliveries(int maxDeliveries) {
		this.maxDeliveries = maxDeliveries;
	}

	public Duration getRecoveryBackOff() {
		return this.recoveryBackOff;
	}

	public void setRecoveryBackOff(Duration recoveryBackOff) {
		this.recoveryBackOff = recoveryBackOff;
	}

	public String getPayloadField() {
		return this.payloadField;
	}

	public void setPayloadField(String payloadField) {
		this.payloadField = payloadField;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	public TransactionBatching getTransactionBatching() {
		return this.transactionBatching;
	}

	/**
	 * Dead-letter streams.
	 */
	public static class DeadLetter {

		/**
		 * Suffix appended to a stream's key to name its dead-letter stream.
		 */
		private String suffix = ".dlq";

		public String getSuffix() {
			return this.suffix;
		}

		public void setSuffix(String suffix) {
			this.suffix = suffix;
		}

	}

	/**
	 * Transaction batching of record-style @Idempotent stream listeners.
	 */
	public static class TransactionBatching {

		/**
		 * Whether the entries of one read (one XREADGROUP reply, up to batch-size) that go to a
		 * record-style @Idempotent @RedisStreamListener (returning void) run in one transaction with
		 * one claim of all their keys, and are acknowledged with one XACK after its commit, instead
		 * of one transaction per entry. A failing entry is rolled back alone (the read runs again
		 * entry by entry) and retried or dead-lettered as an entry. A listener that cannot be
		 * batched (leased mode, a method that returns a value or records a fingerprint) runs entry
		 * by entry, with an INFO log.
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
