package dev.idempotency.core;

/**
 * Told how each {@code @Idempotent} invocation ended, after the transaction committed or rolled
 * back, and of purge runs. Metrics are one listener; applications may add their own beans.
 * Exceptions thrown by a listener are logged and otherwise ignored: they never change the outcome.
 * Transport and outbox events have listeners of their own: {@link DeliveryListener},
 * {@link OutboxListener}.
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

}
