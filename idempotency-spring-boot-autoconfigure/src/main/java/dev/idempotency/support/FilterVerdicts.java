package dev.idempotency.support;

import java.util.ArrayList;
import java.util.List;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;

/**
 * What the duplicate filters said about the keys of one call, and what they learn from it: they are
 * asked before any transaction opens, told when the store then claims a key they thought maybe
 * seen, and taught after commit the keys known completed. Not thread-safe: one instance per call.
 *
 * @since 0.2.0
 */
final class FilterVerdicts {

	private final DuplicateFilterChain filters;

	private List<DuplicateFilterChain.Verdict> verdicts = List.of();

	FilterVerdicts(DuplicateFilterChain filters) {
		this.filters = filters;
	}

	/**
	 * Asks the filters about every key.
	 * @param keys the keys about to be claimed
	 * @return whether each key is known to have completed
	 */
	boolean allCompleted(List<IdempotencyKey> keys) {
		if (this.filters.filters().isEmpty()) {
			return false;
		}
		List<DuplicateFilterChain.Verdict> verdicts = new ArrayList<>(keys.size());
		boolean allCompleted = true;
		for (IdempotencyKey key : keys) {
			DuplicateFilterChain.Verdict verdict = this.filters.check(key);
			verdicts.add(verdict);
			allCompleted &= verdict.completed();
		}
		this.verdicts = verdicts;
		return allCompleted && !keys.isEmpty();
	}

	/**
	 * The store claimed a key now: the filters that answered maybe for it were wrong.
	 * @param index the key's index
	 */
	void claimedNow(int index) {
		if (index < this.verdicts.size()) {
			this.filters.falsePositive(this.verdicts.get(index));
		}
	}

	/**
	 * After commit: teaches the filters the keys that are now known completed, processed here or
	 * duplicates.
	 * @param claims the call's claims
	 */
	void learnCommitted(InvocationClaims claims) {
		for (int i = 0; i < claims.claimCount() && !this.filters.filters().isEmpty(); i++) {
			if (claims.completes(i) || claims.outcome(i) == IdempotencyOutcome.DUPLICATE) {
				this.filters.learn(claims.key(i));
			}
		}
	}

}
