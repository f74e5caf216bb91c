package dev.idempotency.core;

/**
 * The key could not be resolved: it is missing, blank, or its expression failed. Retrying the same
 * message cannot fix this, so transport adapters send it to the dead-letter destination at once.
 *
 * @since 0.1.0
 */
public class InvalidIdempotencyKeyException extends IdempotencyException {

	public InvalidIdempotencyKeyException(String message) {
		super(message);
	}

	public InvalidIdempotencyKeyException(String message, Throwable cause) {
		super(message, cause);
	}

}
