package dev.idempotency.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.IdempotencyStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;

/**
 * The keys of one call, what the store answered for each and the outcome each ends with. A claim
 * result becomes an outcome here and nowhere else; the claims made now are completed after commit
 * and released after a rollback. A key without an outcome when the call ends has failed. Not
 * thread-safe: one instance per call.
 *
 * @since 0.2.0
 */
final class InvocationClaims {

	// The interceptor's category, so that existing logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(IdempotencyInterceptor.class);

	private final IdempotencyStore store;

	private final List<IdempotencyKey> keys;

	private List<ClaimResult> claims = List.of();

	private final @Nullable IdempotencyOutcome[] outcomes;

	/**
	 * The keys of a call, none claimed yet.
	 * @param store the store the keys are claimed in
	 * @param keys the keys, empty before they are resolved
	 */
	InvocationClaims(IdempotencyStore store, List<IdempotencyKey> keys) {
		this.store = store;
		this.keys = keys;
		this.outcomes = new IdempotencyOutcome[keys.size()];
	}

	/**
	 * Takes the store's answers and gives each key its outcome: claimed now is
	 * {@code PROCESSED} (until the call fails), the others are named after the claim.
	 * @param claims one claim per key, in key order
	 */
	void claimed(List<ClaimResult> claims) {
		this.claims = claims;
		for (int i = 0; i < claims.size(); i++) {
			this.outcomes[i] = switch (claims.get(i).status()) {
				case DUPLICATE -> IdempotencyOutcome.DUPLICATE;
				case IN_PROGRESS -> IdempotencyOutcome.IN_PROGRESS;
				case PARKED -> IdempotencyOutcome.PARKED;
				case CLAIMED -> IdempotencyOutcome.PROCESSED;
			};
		}
	}

	/**
	 * Gives every key the same outcome, for a call settled without claiming.
	 * @param outcome the outcome
	 */
	void settleAll(IdempotencyOutcome outcome) {
		Arrays.fill(this.outcomes, outcome);
	}

	/**
	 * Gives one key a different outcome than its claim's.
	 * @param index the key's index
	 * @param outcome the outcome
	 */
	void settle(int index, IdempotencyOutcome outcome) {
		this.outcomes[index] = outcome;
	}

	/**
	 * The first key with an outcome.
	 * @param outcome the outcome
	 * @return the key, or {@code null} if none has it
	 */
	@Nullable IdempotencyKey first(IdempotencyOutcome outcome) {
		for (int i = 0; i < this.claims.size(); i++) {
			if (this.outcomes[i] == outcome) {
				return key(i);
			}
		}
		return null;
	}

	/**
	 * Whether the key at {@code index} was claimed now and stays claimed until it is completed or
	 * released.
	 * @param index the key's index
	 * @return whether the claim is completed after commit
	 */
	boolean completes(int index) {
		return this.outcomes[index] == IdempotencyOutcome.PROCESSED && this.claims.get(index).isClaimed();
	}

	/**
	 * After commit: marks the keys claimed now completed. A failure is logged: the business
	 * transaction is committed.
	 * @param retention how long the completed keys are remembered
	 */
	void completeClaimedNow(Duration retention) {
		for (int i = 0; i < this.claims.size(); i++) {
			if (completes(i)) {
				complete(i, retention);
			}
		}
	}

	/**
	 * After the transaction completed: unless it committed, every key not settled otherwise failed,
	 * and after a rollback the claims made now are released.
	 * @param status a {@link TransactionSynchronization} completion status
	 */
	void afterCompletion(int status) {
		if (status == TransactionSynchronization.STATUS_COMMITTED) {
			return;
		}
		for (int i = 0; i < this.keys.size(); i++) {
			if (status == TransactionSynchronization.STATUS_ROLLED_BACK && i < this.claims.size()) {
				// Unknown outcome: the work may have committed, so keep the claim until its lease ends.
				release(i);
			}
			if (this.outcomes[i] == null || this.outcomes[i] == IdempotencyOutcome.PROCESSED) {
				this.outcomes[i] = IdempotencyOutcome.FAILED;
			}
		}
	}

	int size() {
		return this.keys.size();
	}

	/** The number of keys the store answered for; zero before the claim. */
	int claimCount() {
		return this.claims.size();
	}

	IdempotencyKey key(int index) {
		return this.keys.get(index);
	}

	List<IdempotencyKey> keys() {
		return this.keys;
	}

	ClaimResult claim(int index) {
		return this.claims.get(index);
	}

	List<ClaimResult> claims() {
		return this.claims;
	}

	@Nullable IdempotencyOutcome outcome(int index) {
		return this.outcomes[index];
	}

	/**
	 * The outcome a key is reported with: its own, or {@code FAILED} if the call ended before it
	 * had one.
	 * @param index the key's index
	 * @return the outcome
	 */
	IdempotencyOutcome reported(int index) {
		return (this.outcomes[index] != null) ? this.outcomes[index] : IdempotencyOutcome.FAILED;
	}

	/** The outcome each key is reported with, in key order. */
	List<IdempotencyOutcome> reported() {
		List<IdempotencyOutcome> reported = new ArrayList<>(this.keys.size());
		for (int i = 0; i < this.keys.size(); i++) {
			reported.add(reported(i));
		}
		return reported;
	}

	private void complete(int index, Duration retention) {
		try {
			this.store.complete(key(index), this.claims.get(index), retention);
		}
		catch (RuntimeException ex) {
			// The business transaction is committed; not acknowledging would only let the lease
			// expire and the message run again.
			logger.error("Could not mark " + key(index) + " completed in store '" + this.store.name()
					+ "' after commit; it stays claimed until its lease expires", ex);
		}
	}

	private void release(int index) {
		if (!this.claims.get(index).isClaimed()) {
			return;
		}
		try {
			this.store.release(key(index), this.claims.get(index));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release claim of " + key(index) + " in store '" + this.store.name()
					+ "'; it is retried after its lease expires", ex);
		}
	}

}
