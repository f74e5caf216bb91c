package dev.idempotency.core;

/**
 * An advisory layer in front of the {@link IdempotencyStore} (DESIGN rule 7): it answers some
 * duplicates, or some new keys, before the store is asked, and learns keys only after their
 * transaction committed. The store stays the judge of every answer a filter cannot give for sure.
 * <p>
 * Contract:
 * <ul>
 * <li>{@link Answer#COMPLETED} only for a key the filter learned, and only by a filter that holds
 * nothing but keys that were committed (a set of recently completed keys, an exact bitmap): the
 * delivery is then acknowledged and skipped without a transaction.</li>
 * <li>{@link Answer#ABSENT} only when the key was certainly never learned by this filter (a Bloom
 * filter's "no"): the store is asked at once, without asking the next layers. A filter that did
 * not see every commit (a local filter behind a shared consumer group) loses only efficiency.</li>
 * <li>{@link Answer#MAYBE} for a positive that may be false (a Bloom filter's "perhaps"), and
 * {@link Answer#UNKNOWN} when the filter cannot tell: the next layer is asked.</li>
 * <li>Implementations are thread-safe. {@link #check} must be fast; a filter that cannot answer
 * (its backing service is down) throws, and the chain treats that as {@link Answer#UNKNOWN}.</li>
 * </ul>
 *
 * @since 0.2.0
 */
public interface DuplicateFilter {

	/**
	 * The filter's name, for logs and meters (for example {@code bloom}, {@code redis-recent}).
	 * @return the name
	 */
	String name();

	/**
	 * Tells what the filter knows of a key.
	 * @param key the key of a delivery about to be claimed
	 * @return the answer
	 */
	Answer check(IdempotencyKey key);

	/**
	 * Learns a key whose processing committed (or that the store found completed), after commit.
	 * @param key the committed key
	 */
	void learn(IdempotencyKey key);

	/**
	 * The memory the filter holds in this process, for a gauge.
	 * @return bytes, or {@code -1} when the filter lives elsewhere (Redis)
	 */
	default long memoryBytes() {
		return -1;
	}

	/** What a filter knows of a key. */
	enum Answer {

		/** The key certainly completed: skip the store, acknowledge the duplicate. */
		COMPLETED,

		/** The key was certainly never learned here: ask the store at once. */
		ABSENT,

		/** Perhaps learned (a positive that may be false): ask the next layer. */
		MAYBE,

		/** No information: ask the next layer. */
		UNKNOWN

	}

}
