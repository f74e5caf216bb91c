package dev.idempotency.support;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;

/**
 * The keys of a call that claims several at once: a batch listener's ({@link BatchKeys}) or a
 * {@link TransactionBatch}'s ({@link TransactionBatchKeys}). Both claim all their keys with one
 * {@link IdempotencyStore#claimAll claimAll}, and neither is completed by a
 * {@link dev.idempotency.core.CompletingAcknowledger}, which completes one claim only; how the keys
 * are resolved and the method called is theirs.
 *
 * @since 0.2.0
 */
abstract sealed class ManyKeys implements InvocationKeys permits BatchKeys, TransactionBatchKeys {

	@Override
	public final List<ClaimResult> claim(IdempotencyStore store, List<IdempotencyKey> keys, Duration lease,
			Duration retention) {
		return store.claimAll(keys, lease, retention);
	}

	/** A completing acknowledger completes one claim; these claims are completed one by one. */
	@Override
	public final boolean completesInOneStep() {
		return false;
	}

}
