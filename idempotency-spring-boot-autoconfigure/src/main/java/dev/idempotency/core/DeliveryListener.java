package dev.idempotency.core;

import java.time.Duration;

/**
 * Told what transport adapters did with messages outside an invocation: dead letters, and the
 * health of stream consumer groups (pending entries, subscriptions, claims, trims, recreated groups).
 * Exceptions thrown by a listener are logged and otherwise ignored. Metrics are one listener;
 * applications may add their own beans.
 *
 * @since 0.2.0
 */
public interface DeliveryListener {

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
	 * Called once when a listener paused because the infrastructure failed (fail-closed): it stops
	 * consuming and retries the delivery in hand until the store answers again.
	 * @param listener the listener's id (a Kafka listener container's id, a stream listener's
	 * {@code stream/group})
	 * @param cause the infrastructure failure that paused it
	 * @since 0.2.0
	 */
	default void onListenerPaused(String listener, Throwable cause) {
	}

	/**
	 * Called once when a paused listener processed a delivery again.
	 * @param listener the listener's id
	 * @param paused how long it was paused
	 * @since 0.2.0
	 */
	default void onListenerResumed(String listener, Duration paused) {
	}

}
