package dev.idempotency.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Remembers which keys have been processed. The interceptor calls {@link #claim} before the
 * business method and either relies on the surrounding transaction ({@link #isTransactional()}) or
 * calls {@link #complete} / {@link #release} after it.
 * <p>
 * Contract for every implementation:
 * <ul>
 * <li>{@link #claim} is atomic: of any number of concurrent claims of one key exactly one is
 * {@code CLAIMED}; it is decided by a unique index or {@code SET NX}, never by check-then-act.</li>
 * <li>A duplicate is reported by result, never by an exception, and never leaves the caller's
 * transaction unusable.</li>
 * <li>A key whose retention has passed may be claimed again.</li>
 * <li>Implementations are thread-safe.</li>
 * </ul>
 *
 * @since 0.1.0
 */
public interface IdempotencyStore {

	/**
	 * Claims a key.
	 * <p>
	 * A transactional store writes the key as processed in the caller's current transaction, which
	 * must be active: the record commits with the business writes or rolls back with them. A
	 * concurrent claim of the same key blocks until that transaction ends (bounded by the database's
	 * lock timeout) and then reports {@code DUPLICATE} or {@code CLAIMED}.
	 * <p>
	 * A leased store writes the key as in progress until {@code now + lease}; a key whose lease has
	 * expired is taken over (unless the store leaves it to a reconciler: then it is
	 * {@code IN_PROGRESS} until reconciled), and a parked key is {@code PARKED}.
	 * @param key the key, already digested if the store needs it shorter
	 * @param lease how long an in-progress claim holds the key (leased stores only)
	 * @param retention how long a processed key is remembered
	 * @return the claim, never {@code null}
	 * @throws IdempotencyStoreException if the store cannot be reached or answers an error; the
	 * outcome is then unknown and the delivery must not be acknowledged
	 */
	ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention);

	/**
	 * Claims the keys of a batch, as {@link #claim} would each, in one go where the backend can (one
	 * multi-row statement, one script). A key that appears more than once is claimed at most once:
	 * its later occurrences are {@code DUPLICATE}s of the first.
	 * <p>
	 * The default claims the keys one by one and, if a claim throws, releases the claims it already
	 * granted before rethrowing.
	 * @param keys the keys, already digested if the store needs it shorter
	 * @param lease how long an in-progress claim holds a key (leased stores only)
	 * @param retention how long a processed key is remembered
	 * @return one result per key, in the order of {@code keys}
	 * @throws IdempotencyStoreException as {@link #claim}
	 */
	default List<ClaimResult> claimAll(List<IdempotencyKey> keys, Duration lease, Duration retention) {
		List<ClaimResult> results = new ArrayList<>(keys.size());
		Set<IdempotencyKey> seen = new HashSet<>();
		try {
			for (IdempotencyKey key : keys) {
				results.add(seen.add(key) ? claim(key, lease, retention) : ClaimResult.duplicate());
			}
		}
		catch (RuntimeException ex) {
			for (int i = 0; i < results.size(); i++) {
				if (results.get(i).isClaimed()) {
					release(keys.get(i), results.get(i));
				}
			}
			throw ex;
		}
		return results;
	}

	/**
	 * Marks a claimed key as processed for {@code retention}. Called by the interceptor after the
	 * business transaction committed. Transactional stores need not do anything.
	 * @param key the claimed key
	 * @param claim the result of the claim
	 * @param retention how long the key is remembered
	 */
	default void complete(IdempotencyKey key, ClaimResult claim, Duration retention) {
	}

	/**
	 * Gives up a claim after the work failed, so a redelivery can run it. Must only remove the
	 * caller's own claim (compare by token). Transactional stores need not do anything: the rollback
	 * removes the record.
	 * @param key the claimed key
	 * @param claim the result of the claim
	 */
	default void release(IdempotencyKey key, ClaimResult claim) {
	}

	/**
	 * Whether {@link #claim} takes part in the caller's transaction (and so needs one).
	 * @return {@code true} for stores in the business database
	 */
	boolean isTransactional();

	/**
	 * The resource whose transaction {@link #claim} must take part in, such as the JDBC store's
	 * {@code DataSource}. The starter uses it to choose the transaction manager of an
	 * {@code @Idempotent} method (the one that manages this resource) and to fail start-up when the
	 * configured one does not.
	 * @return the resource, or {@code null} when the store does not claim inside the business
	 * transaction, or cannot name the resource (no check is then made)
	 * @since 0.2.0
	 */
	default @Nullable Object transactionalResource() {
		return null;
	}

	/**
	 * Checks that the store answers, as fail-closed does before it lets a paused listener resume
	 * (and a health indicator may). Must return or throw within a few seconds, must not change
	 * anything, and must not need a transaction.
	 * <p>
	 * The default does nothing: a store that cannot check lets the next delivery find out.
	 * @throws RuntimeException if the store cannot be reached or does not answer
	 * @since 0.2.0
	 */
	default void probe() {
	}

	/**
	 * The store that claims the same keys in leased mode: each step (claim as in progress, complete,
	 * release) commits on its own, and a claim holds its key under a lease. The default is this
	 * store when it is not transactional, else {@code null} (no leased mode).
	 * @return the leased store, or {@code null}
	 * @since 0.2.0
	 */
	default @Nullable IdempotencyStore leased() {
		return isTransactional() ? null : this;
	}

	/**
	 * Extends the lease of a claim this caller still holds (compared by token), to {@code now + lease},
	 * while a long method runs. The default renews nothing and reports the lease as not renewed.
	 * @param key the claimed key
	 * @param claim the result of the claim
	 * @param lease the new lease, from now
	 * @return {@code true} if the claim is still held and was extended, {@code false} if it is not
	 * held any more (completed, released, taken over) or the store cannot renew
	 * @throws IdempotencyStoreException if the store cannot be reached
	 * @since 0.2.0
	 */
	default boolean renew(IdempotencyKey key, ClaimResult claim, Duration lease) {
		return false;
	}

	/**
	 * Whether the store implements {@link #recordFingerprint}, {@link #recordResult} and
	 * {@link #recorded}. Methods that ask for fingerprints or stored results fail start-up on a store
	 * that does not.
	 * @return {@code true} if the store records fingerprints and results with its keys
	 * @since 0.2.0
	 */
	default boolean recordsKeyDetails() {
		return false;
	}

	/**
	 * Records the fingerprint of the payload processed under a key just claimed: a leased store on its
	 * own, before the method runs, while the caller holds the claim (compared by token); a
	 * transactional store in the caller's transaction (it commits or rolls back with the claim), when
	 * its {@link #recordDetails} does not write the fingerprint with the result itself.
	 * @param key the claimed key
	 * @param claim the granted claim
	 * @param fingerprint lower-case hex SHA-256, 64 characters
	 * @throws IdempotencyStoreException if the store cannot be reached
	 * @throws UnsupportedOperationException if {@link #recordsKeyDetails()} is {@code false}
	 * @since 0.2.0
	 */
	default void recordFingerprint(IdempotencyKey key, ClaimResult claim, String fingerprint) {
		throw new UnsupportedOperationException("Store '" + name() + "' does not record fingerprints");
	}

	/**
	 * Records the method's serialized result with a key just processed, after the method returned:
	 * a transactional store in the caller's transaction (when its {@link #recordDetails} does not
	 * write it itself), a leased store before {@link #complete} while the caller holds the claim.
	 * @param key the claimed key
	 * @param claim the granted claim
	 * @param result the serialized result
	 * @throws IdempotencyStoreException if the store cannot be reached
	 * @throws UnsupportedOperationException if {@link #recordsKeyDetails()} is {@code false}
	 * @since 0.2.0
	 */
	default void recordResult(IdempotencyKey key, ClaimResult claim, String result) {
		throw new UnsupportedOperationException("Store '" + name() + "' does not record results");
	}

	/**
	 * Records the fingerprint and the serialized result of a key claimed in the caller's transaction
	 * together, after the method returned and before commit. The engine calls it, instead of
	 * {@link #recordFingerprint} before the method and {@link #recordResult} after it, only for a
	 * claim of a {@linkplain #isTransactional() transactional} store: a concurrent claim of the key
	 * waits for the caller's transaction, so no other delivery can read the record before both are
	 * written, and a rollback removes them with the claim. A leased store's claim commits on its own,
	 * so its fingerprint is recorded at once, where a concurrent delivery can compare it.
	 * <p>
	 * Writes what is given and clears what is not: a {@code null} fingerprint leaves the recorded
	 * one as it is, a {@code null} result clears a result the record still held (of a taken-over
	 * expired key) when a fingerprint is given. The default calls {@link #recordFingerprint} and
	 * then {@link #recordResult} for the non-{@code null} ones; a store in a database does both in
	 * one statement.
	 * @param key the claimed key
	 * @param claim the granted claim
	 * @param fingerprint lower-case hex SHA-256, 64 characters, or {@code null} if the method has no
	 * fingerprint
	 * @param result the serialized result, or {@code null} if none is stored
	 * @throws IdempotencyStoreException if the store cannot be reached
	 * @throws UnsupportedOperationException if {@link #recordsKeyDetails()} is {@code false}
	 * @since 0.2.0
	 */
	default void recordDetails(IdempotencyKey key, ClaimResult claim, @Nullable String fingerprint,
			@Nullable String result) {
		if (fingerprint != null) {
			recordFingerprint(key, claim, fingerprint);
		}
		if (result != null) {
			recordResult(key, claim, result);
		}
	}

	/**
	 * Reads what was recorded with a key, for a delivery whose claim was a duplicate: a transactional
	 * store in the caller's transaction, a leased store on its own.
	 * @param key the key (digested like a claim when it is long)
	 * @return the recorded details, or {@code null} if the key is not present (any more)
	 * @throws IdempotencyStoreException if the store cannot be reached
	 * @throws UnsupportedOperationException if {@link #recordsKeyDetails()} is {@code false}
	 * @since 0.2.0
	 */
	default @Nullable RecordedKey recorded(IdempotencyKey key) {
		throw new UnsupportedOperationException("Store '" + name() + "' does not record fingerprints or results");
	}

	/**
	 * Counts a delivery found to be a duplicate of a processed key, with the time it was seen, when
	 * per-key duplicate accounting is on ({@code idempotency.duplicate-accounting}): a
	 * transactional store in the caller's transaction (it adds a write to the duplicate's otherwise
	 * read-only transaction), a leased store on its own. Best effort: a key that is gone is not
	 * counted. The default keeps no count.
	 * @param key the key (digested like a claim when it is long)
	 * @throws IdempotencyStoreException if the store cannot be reached
	 * @since 0.2.0
	 */
	default void recordDuplicate(IdempotencyKey key) {
	}

	/**
	 * Short name used as the {@code store} tag of metrics, e.g. {@code jdbc}.
	 * @return the store's name
	 */
	String name();

}
