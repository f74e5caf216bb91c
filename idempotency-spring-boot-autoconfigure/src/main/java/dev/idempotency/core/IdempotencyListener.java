package dev.idempotency.core;

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

}
