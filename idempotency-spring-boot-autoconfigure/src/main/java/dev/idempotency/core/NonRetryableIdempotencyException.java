package dev.idempotency.core;

/**
 * A failure that retrying the same message cannot fix: transport adapters send the message to the
 * dead-letter destination at once instead of spending retries on it. Adapters check this one type.
 *
 * @since 0.2.0
 */
public class NonRetryableIdempotencyException extends IdempotencyException {

	public NonRetryableIdempotencyException(String message) {
		super(message);
	}

	public NonRetryableIdempotencyException(String message, Throwable cause) {
		super(message, cause);
	}

}
