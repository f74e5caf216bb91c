package dev.idempotency.core;

/**
 * The store could not answer a claim. The outcome is unknown: the delivery is not acknowledged and
 * will be retried.
 *
 * @since 0.1.0
 */
public class IdempotencyStoreException extends IdempotencyException {

	public IdempotencyStoreException(String message, Throwable cause) {
		super(message, cause);
	}

}
