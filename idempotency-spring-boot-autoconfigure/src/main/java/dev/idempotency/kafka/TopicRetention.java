package dev.idempotency.kafka;

import java.time.Duration;
import java.util.Locale;

/**
 * How long a topic keeps its records, as the broker reports it.
 *
 * @param topic the topic
 * @param retentionMs the topic's effective {@code retention.ms}; {@code -1} means no time limit
 * @param cleanupPolicy the topic's effective {@code cleanup.policy} ({@code delete}, {@code compact}
 * or both)
 * @since 0.1.0
 */
public record TopicRetention(String topic, long retentionMs, String cleanupPolicy) {

	/**
	 * Whether the topic deletes every record after a bounded time: {@code retention.ms} is not
	 * {@code -1} and the topic is not compacted (a compacted topic keeps the latest record of each
	 * key for ever).
	 * @return whether a dedup retention can cover the topic
	 */
	public boolean isBounded() {
		return this.retentionMs >= 0 && !this.cleanupPolicy.toLowerCase(Locale.ROOT).contains("compact");
	}

	/**
	 * The retention as a duration.
	 * @return {@code retention.ms}
	 * @throws IllegalStateException if the retention has no time limit
	 */
	public Duration retention() {
		if (this.retentionMs < 0) {
			throw new IllegalStateException("Topic '" + this.topic + "' has no time limit (retention.ms=-1)");
		}
		return Duration.ofMillis(this.retentionMs);
	}

}
