package dev.idempotency.core;

/**
 * Another worker holds an unexpired lease on the key. The delivery is not acknowledged; the
 * transport retries it later, when it is found either processed or free.
 *
 * @since 0.1.0
 */
public class IdempotencyInProgressException extends IdempotencyException {

	public IdempotencyInProgressException(IdempotencyKey key) {
		super("Message with key '" + key + "' is being processed by another worker");
	}

}
