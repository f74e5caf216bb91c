package dev.idempotency.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
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
 * <li>A scan may be scoped to some namespaces, for a table that several applications share: a
 * scoped {@link #takeOver(int, Duration, Collection)} never takes a claim of another namespace, and
 * {@link #oldestUnfinished(Collection)} never reports one. An empty collection means every
 * namespace of the store.</li>
 * </ul>
 *
 * @since 0.2.0
 */
public interface UnfinishedClaims {

	/**
	 * Takes over up to {@code limit} claims of any namespace whose lease ended without completion,
	 * oldest first, each held under a new token for {@code hold}: the same as
	 * {@link #takeOver(int, Duration, Collection)} with an empty collection.
	 * @param limit the most claims to return
	 * @param hold how long the reconciler holds each claim before another scan or a delivery may
	 * take it
	 * @return the claims now held, possibly empty
	 * @throws IdempotencyStoreException if the store cannot be reached
	 */
	default List<UnfinishedClaim> takeOver(int limit, Duration hold) {
		return takeOver(limit, hold, List.of());
	}

	/**
	 * Takes over up to {@code limit} claims of the given namespaces whose lease ended without
	 * completion, oldest first, each held under a new token for {@code hold}. A claim of a namespace
	 * not in {@code namespaces} is neither returned nor held.
	 * @param limit the most claims to return
	 * @param hold how long the reconciler holds each claim before another scan or a delivery may
	 * take it
	 * @param namespaces the namespaces to scan (exact names; duplicates are ignored); empty for every
	 * namespace of the store
	 * @return the claims now held, possibly empty
	 * @throws IdempotencyStoreException if the store cannot be reached
	 * @throws IllegalArgumentException if {@code limit} is below 1 or a namespace is blank
	 * @since 0.2.0
	 */
	List<UnfinishedClaim> takeOver(int limit, Duration hold, Collection<String> namespaces);

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
	 * When the oldest claim of any namespace whose lease has ended without completion was made: the
	 * same as {@link #oldestUnfinished(Collection)} with an empty collection.
	 * @return the time, or {@code null} when there is none
	 * @throws IdempotencyStoreException if the store cannot be reached
	 */
	default @Nullable Instant oldestUnfinished() {
		return oldestUnfinished(List.of());
	}

	/**
	 * When the oldest claim of the given namespaces whose lease has ended without completion was
	 * made.
	 * @param namespaces the namespaces to look at, as for {@link #takeOver(int, Duration, Collection)};
	 * empty for every namespace of the store
	 * @return the time, or {@code null} when there is none
	 * @throws IdempotencyStoreException if the store cannot be reached
	 * @throws IllegalArgumentException if a namespace is blank
	 * @since 0.2.0
	 */
	@Nullable Instant oldestUnfinished(Collection<String> namespaces);

}
