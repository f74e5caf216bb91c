package dev.idempotency.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A leased store whose unfinished claims can be reconciled: the store side of
 * {@link IdempotencyReconciler}.
 * <p>
 * Contract:
 * <ul>
 * <li>{@link #takeOver} is safe with several instances scanning at once: each unfinished claim is
 * handed to at most one of them, and to none while a delivery or another scan holds it.</li>
 * <li>{@link #settle} applies a verdict only while the reconciler's hold (its token) is still the
 * claim's owner.</li>
 * <li>Every method commits on its own, outside any business transaction.</li>
 * </ul>
 *
 * @since 0.2.0
 */
public interface UnfinishedClaims {

	/**
	 * Takes over up to {@code limit} claims whose lease ended without completion, oldest first, each
	 * held under a new token for {@code hold}.
	 * @param limit the most claims to return
	 * @param hold how long the reconciler holds each claim before another scan or a delivery may
	 * take it
	 * @return the claims now held, possibly empty
	 * @throws IdempotencyStoreException if the store cannot be reached
	 */
	List<UnfinishedClaim> takeOver(int limit, Duration hold);

	/**
	 * Applies a verdict to a claim held by {@link #takeOver}: completed for {@code retention},
	 * released, or parked.
	 * @param claim the held claim
	 * @param verdict the reconciler's verdict
	 * @param retention how long a completed key is remembered
	 * @return {@code false} if the hold had ended and someone else took the claim (nothing changed)
	 * @throws IdempotencyStoreException if the store cannot be reached
	 */
	boolean settle(UnfinishedClaim claim, IdempotencyReconciler.Verdict verdict, Duration retention);

	/**
	 * When the oldest claim whose lease has ended without completion was made.
	 * @return the time, or {@code null} when there is none
	 * @throws IdempotencyStoreException if the store cannot be reached
	 */
	@Nullable Instant oldestUnfinished();

}
