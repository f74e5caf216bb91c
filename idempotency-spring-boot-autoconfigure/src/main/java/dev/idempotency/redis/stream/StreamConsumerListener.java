package dev.idempotency.redis.stream;

import java.time.Duration;

import dev.idempotency.core.DeliveryListener;

/**
 * A {@link DeliveryListener} that is also told about the health of the Redis Stream consumer
 * groups: pending entries, subscriptions, claims, trims and recreated groups. The Redis Stream
 * adapter finds it among the {@code DeliveryListener} beans and calls these methods only on the
 * listeners that implement this interface. Exceptions thrown by a listener are logged and otherwise
 * ignored.
 *
 * @since 0.2.0
 */
public interface StreamConsumerListener extends DeliveryListener {

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

}
