package dev.idempotency.outbox;

import java.time.Duration;

/**
 * Told what the outbox relay did with each message: sent, failed and to be retried, or dead.
 * Exceptions thrown by a listener are logged and otherwise ignored. Metrics are one listener;
 * applications may add their own beans.
 *
 * @since 0.2.0
 */
public interface OutboxListener {

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
