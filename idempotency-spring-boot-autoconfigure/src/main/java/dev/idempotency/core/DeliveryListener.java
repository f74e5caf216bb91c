package dev.idempotency.core;

import java.time.Duration;

/**
 * Told what transport adapters did with messages outside an invocation: dead letters, and the
 * listeners that fail-closed paused and resumed. Events of one transport only come through a
 * sub-interface of its own, which its adapter calls on the listeners that implement it (the Redis
 * Stream adapter's consumer groups: {@code dev.idempotency.redis.stream.StreamConsumerListener}).
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
