package dev.idempotency.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Told how each {@code @Idempotent} invocation ended, after the transaction committed or rolled
 * back, and of purge and reconciliation runs. Metrics are one listener; applications may add their
 * own beans. Exceptions thrown by a listener are logged and otherwise ignored: they never change the
 * outcome. Transport events have listeners of their own ({@link DeliveryListener}, and a transport's
 * sub-interface of it for its own events), and so has the outbox relay ({@code OutboxListener}).
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
	 * Called after a reconciler settled, or failed to settle, one unfinished claim.
	 * @param store the store's name
	 * @param claim the claim
	 * @param verdict the reconciler's verdict, or {@code null} if it threw
	 * @param settled whether the verdict was applied ({@code false}: the reconciler threw, or its
	 * hold on the claim had ended)
	 * @since 0.2.0
	 */
	default void onReconciled(String store, UnfinishedClaim claim, IdempotencyReconciler.@Nullable Verdict verdict,
			boolean settled) {
	}

	/**
	 * Called after each reconciliation scan.
	 * @param store the store's name
	 * @param taken how many unfinished claims the scan took over
	 * @param oldestUnfinished when the oldest claim still unfinished after the scan was made, or
	 * {@code null} when there is none
	 * @since 0.2.0
	 */
	default void onReconciliationScan(String store, int taken, @Nullable Instant oldestUnfinished) {
	}

}
