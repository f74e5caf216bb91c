package dev.idempotency.core;

import java.time.Duration;

/**
 * Told how each {@code @Idempotent} invocation ended, after the transaction committed or rolled
 * back. Metrics are one listener; applications may add their own beans. Exceptions thrown by a
 * listener are logged and otherwise ignored: they never change the outcome.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface IdempotencyListener {

	/**
	 * Called once per invocation, on the invoking thread, after its transaction completed.
	 * @param event how the invocation ended
	 */
	void onOutcome(IdempotencyEvent event);

	/**
	 * Called after a purge run deleted expired records.
	 * @param store the store's name
	 * @param deleted how many records were deleted, possibly 0
	 */
	default void onPurged(String store, int deleted) {
	}

	/**
	 * Called after a transport adapter published a message that could not be processed to its
	 * dead-letter destination (and before the original is acknowledged).
	 * @param source the topic or stream the message came from
	 * @param destination the dead-letter topic or stream
	 * @param cause why the message was given up
	 */
	default void onDeadLettered(String source, String destination, Throwable cause) {
	}

	/**
	 * Called by a stream adapter each time it measured a consumer group's pending entries (entries
	 * delivered to a consumer and not yet acknowledged).
	 * @param stream the stream
	 * @param group the consumer group
	 * @param pending how many entries are pending, in the whole group
	 * @param oldestIdle how long the longest-waiting entry among the oldest pending ones has gone
	 * without a delivery; {@link Duration#ZERO} when none is pending
	 */
	default void onStreamPending(String stream, String group, long pending, Duration oldestIdle) {
	}

	/**
	 * Called by a stream adapter when the number of its subscriptions that are reading a stream
	 * changed, and periodically.
	 * @param stream the stream
	 * @param group the consumer group
	 * @param active subscriptions of this application that are reading without error
	 */
	default void onStreamSubscriptions(String stream, String group, int active) {
	}

	/**
	 * Called after a stream adapter claimed entries that another consumer (or an earlier life of
	 * this one) left pending for longer than the minimum idle time.
	 * @param stream the stream
	 * @param group the consumer group
	 * @param count how many entries were claimed, at least 1
	 */
	default void onStreamReclaimed(String stream, String group, int count) {
	}

	/**
	 * Called after a stream adapter acknowledged pending entries whose content was trimmed or
	 * deleted from the stream before they could be processed.
	 * @param stream the stream
	 * @param group the consumer group
	 * @param count how many entries were lost that way, at least 1
	 */
	default void onStreamTrimmed(String stream, String group, int count) {
	}

	/**
	 * Called after a stream adapter recreated a consumer group that had disappeared (a Redis restart
	 * without persistence, a failover, a deleted stream).
	 * @param stream the stream
	 * @param group the consumer group
	 */
	default void onStreamGroupRecreated(String stream, String group) {
	}

	/**
	 * Called by the outbox relay, on its own thread, after the broker acknowledged a message and its
	 * row was marked sent. A message sent again after a relay died before marking it is told once,
	 * by the relay that marked it.
	 * @param destination the row's destination, e.g. {@code kafka:orders}
	 * @param latency from the row's creation (inside the business transaction) to the broker's
	 * acknowledgement
	 */
	default void onOutboxSent(String destination, Duration latency) {
	}

	/**
	 * Called by the outbox relay after an attempt to send a message failed and the row was
	 * scheduled for another attempt.
	 * @param destination the row's destination
	 * @param cause why the attempt failed
	 */
	default void onOutboxSendFailed(String destination, Throwable cause) {
	}

	/**
	 * Called by the outbox relay after a message used up its attempts (or has no sender) and its
	 * row was marked dead; it stays in the table until it is re-driven.
	 * @param destination the row's destination
	 * @param messageId the message's id
	 * @param cause why the last attempt failed
	 */
	default void onOutboxDead(String destination, String messageId, Throwable cause) {
	}

}
