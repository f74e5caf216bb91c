package dev.idempotency.kafka.share.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Kafka share-group adapter.
 *
 * @since 0.2.0
 */
@ConfigurationProperties("idempotency.kafka.share")
public class IdempotencyKafkaShareProperties {

	/**
	 * Whether share-group listener containers bind each record to the delivery context and settle
	 * it with the broker after the transaction (accept, release, reject, renew).
	 */
	private boolean enabled = true;

	/**
	 * Deliveries a failing record gets, the first included; the last one dead-letters and rejects
	 * it. Empty for the broker's group.share.delivery.count.limit, read at start-up; a value above
	 * the broker's fails start-up, since the broker archives a record when its limit is reached.
	 */
	private @Nullable Integer maxAttempts;

	/**
	 * Whether the acquisition lock of a record is renewed while its method runs, so that a method
	 * slower than the lock keeps its record instead of another consumer getting it.
	 */
	private boolean renew = true;

	/**
	 * How often the lock of a record is renewed while its method runs. Empty for a third of the
	 * acquisition lock the broker grants the consumer (group.share.record.lock.duration.ms).
	 */
	private @Nullable Duration renewInterval;

	/**
	 * Whether records that cannot succeed (bad input, failures a retry cannot fix, the last delivery
	 * attempt) are published to the dead-letter topic (idempotency.kafka.dead-letter.suffix) before
	 * they are rejected. Needs a KafkaOperations bean; without one they are rejected and logged.
	 */
	private boolean deadLetter = true;

	/**
	 * Longest start-up waits for the broker to tell its delivery-attempt limit.
	 */
	private Duration brokerTimeout = Duration.ofSeconds(5);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(@Nullable Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public boolean isRenew() {
		return this.renew;
	}

	public void setRenew(boolean renew) {
		this.renew = renew;
	}

	public @Nullable Duration getRenewInterval() {
		return this.renewInterval;
	}

	public void setRenewInterval(@Nullable Duration renewInterval) {
		this.renewInterval = renewInterval;
	}

	public boolean isDeadLetter() {
		return this.deadLetter;
	}

	public void setDeadLetter(boolean deadLetter) {
		this.deadLetter = deadLetter;
	}

	public Duration getBrokerTimeout() {
		return this.brokerTimeout;
	}

	public void setBrokerTimeout(Duration brokerTimeout) {
		this.brokerTimeout = brokerTimeout;
	}

}
