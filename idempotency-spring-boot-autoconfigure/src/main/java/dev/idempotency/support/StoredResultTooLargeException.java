package dev.idempotency.support;

import dev.idempotency.core.NonRetryableIdempotencyException;

/**
 * The result of an {@code @Idempotent(onDuplicate = RETURN_PREVIOUS)} method, serialized, is larger
 * than {@code idempotency.stored-result.max-size}. Thrown before the transaction commits, so the
 * method's writes roll back with the claim (a leased claim is released); never retried, since the
 * same message would give the same result.
 *
 * @since 0.2.0
 */
public class StoredResultTooLargeException extends NonRetryableIdempotencyException {

	public StoredResultTooLargeException(String message) {
		super(message);
	}

}
