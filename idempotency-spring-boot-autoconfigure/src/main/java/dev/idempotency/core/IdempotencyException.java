package dev.idempotency.core;

/**
 * Base class of the exceptions this library throws.
 *
 * @since 0.1.0
 */
public class IdempotencyException extends RuntimeException {

	public IdempotencyException(String message) {
		super(message);
	}

	public IdempotencyException(String message, Throwable cause) {
		super(message, cause);
	}

}
