package dev.idempotency.core;

/**
 * A leased store that keeps each key as one string entry of a key-value server (Redis), described
 * here so that a transport on the same server can complete a claim in its own server-side script
 * (see {@link CompletingAcknowledger}) without depending on the store's implementation.
 * <p>
 * Completing means: if the entry at {@link #storageKey} still holds {@link #claimedValue}, set it
 * to {@link #completedValue()} with the retention as its time to live.
 *
 * @since 0.1.0
 */
public interface KeyValueIdempotencyStore extends IdempotencyStore {

	/**
	 * The server key of the entry for {@code key}.
	 * @param key the idempotency key
	 * @return the entry's key, e.g. {@code idempotency:points:order-1}
	 */
	String storageKey(IdempotencyKey key);

	/**
	 * The value the entry holds while {@code claim} is in progress.
	 * @param claim a granted claim of this store
	 * @return the in-progress value, unique to the claim
	 */
	String claimedValue(ClaimResult claim);

	/**
	 * The value the entry holds once completed.
	 * @return the completed value
	 */
	String completedValue();

}
