package dev.idempotency.core;

/**
 * A delivery reused a processed key with a different payload: its fingerprint differs from the one
 * recorded with the key. Never a silent skip, and never retried: the producer sent two different
 * messages under one key, which only a person can sort out. Dead-lettered, counted as
 * {@code conflict}.
 *
 * @since 0.2.0
 */
public class IdempotencyKeyConflictException extends NonRetryableIdempotencyException {

	private final IdempotencyKey key;

	/**
	 * Creates an exception.
	 * @param key the key
	 * @param recorded the fingerprint recorded with the key
	 * @param delivered the fingerprint of this delivery's payload
	 */
	public IdempotencyKeyConflictException(IdempotencyKey key, String recorded, String delivered) {
		super("Key " + key + " was processed with a different payload (fingerprint " + abbreviate(recorded)
				+ ", this delivery " + abbreviate(delivered) + "); the delivery is not processed");
		this.key = key;
	}

	private static String abbreviate(String fingerprint) {
		return (fingerprint.length() > 12) ? fingerprint.substring(0, 12) + "…" : fingerprint;
	}

	public IdempotencyKey getKey() {
		return this.key;
	}

}
