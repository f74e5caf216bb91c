package dev.idempotency.core;

/**
 * Thrown instead of skipping silently when {@code @Idempotent(onDuplicate = THROW)} meets a key that
 * was processed before.
 *
 * @since 0.1.0
 */
public class DuplicateMessageException extends NonRetryableIdempotencyException {

	private final IdempotencyKey key;

	public DuplicateMessageException(IdempotencyKey key) {
		super("Message with key '" + key + "' was already processed");
		this.key = key;
	}

	public IdempotencyKey getKey() {
		return this.key;
	}

}
