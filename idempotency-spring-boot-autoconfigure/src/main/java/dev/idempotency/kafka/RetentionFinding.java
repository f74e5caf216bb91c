package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A topic that can replay records to an {@code @Idempotent} listener after the listener's keys
 * have expired.
 *
 * @param kind whether the dedup retention is too short or the topic has no time limit
 * @param topic the topic and its retention
 * @param methods the {@code @Idempotent} methods reading it ({@link Kind#TOO_SHORT}: exactly one)
 * @param dedupRetention how long the method keeps its keys; {@code null} for
 * {@link Kind#UNBOUNDED}
 * @param margin the margin the dedup retention must exceed the topic's retention by
 * @since 0.1.0
 */
public record RetentionFinding(Kind kind, TopicRetention topic, List<String> methods, @Nullable Duration dedupRetention,
		Duration margin) {

	public RetentionFinding {
		methods = List.copyOf(methods);
	}

	/**
	 * The shortest dedup retention that covers the topic: its {@code retention.ms} plus the margin.
	 * @return the required dedup retention
	 * @throws IllegalStateException for an {@link Kind#UNBOUNDED} topic
	 */
	public Duration requiredRetention() {
		return this.topic.retention().plus(this.margin);
	}

	/**
	 * One sentence with both numbers and the fix.
	 * @return the message
	 */
	public String message() {
		if (this.kind == Kind.UNBOUNDED) {
			String why = (this.topic.retentionMs() < 0) ? "keeps records without a time limit (retention.ms=-1)"
					: "is compacted (cleanup.policy=" + this.topic.cleanupPolicy() + ")";
			return "Topic '" + this.topic.topic() + "' read by @Idempotent " + String.join(", ", this.methods) + " " + why
					+ ", so no dedup retention can cover a replay of it; not checked";
		}
		Duration dedup = this.dedupRetention;
		Duration topicRetention = this.topic.retention();
		Duration required = requiredRetention();
		String message = "@Idempotent " + this.methods.get(0) + " keeps keys for " + format(dedup) + " but topic '"
				+ this.topic.topic() + "' keeps records for " + format(topicRetention) + " (retention.ms="
				+ this.topic.retentionMs() + "), so a replay of the topic can redeliver records whose keys are gone. "
				+ "Raise idempotency.retention or @Idempotent(retention) to at least " + format(required)
				+ " (the topic's retention plus the " + format(this.margin)
				+ " margin of idempotency.kafka.retention-check-margin)";
		Duration lowest = (dedup != null) ? dedup.minus(this.margin) : Duration.ZERO;
		if (!lowest.isNegative() && !lowest.isZero()) {
			message += ", or lower the topic's retention.ms to at most " + lowest.toMillis() + " (" + format(lowest) + ")";
		}
		return message;
	}

	/**
	 * A duration in the largest unit that expresses it exactly: {@code 7d}, {@code 36h},
	 * {@code 90m}, {@code 45s} or {@code 1500ms}.
	 * @param duration the duration, {@code null} printed as {@code "?"}
	 * @return the text
	 */
	static String format(@Nullable Duration duration) {
		if (duration == null) {
			return "?";
		}
		long millis = duration.toMillis();
		long[] units = { Duration.ofDays(1).toMillis(), Duration.ofHours(1).toMillis(), Duration.ofMinutes(1).toMillis(),
				1000 };
		String[] suffixes = { "d", "h", "m", "s" };
		for (int i = 0; i < units.length; i++) {
			if (millis != 0 && millis % units[i] == 0) {
				return (millis / units[i]) + suffixes[i];
			}
		}
		return millis + "ms";
	}

	/**
	 * What was found.
	 */
	public enum Kind {

		/** The dedup retention is shorter than the topic's retention plus the margin. */
		TOO_SHORT,

		/**
		 * The topic has no time limit ({@code retention.ms=-1}) or is compacted: no dedup retention
		 * can cover it.
		 */
		UNBOUNDED

	}

}
