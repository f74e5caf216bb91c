package dev.idempotency.core;

/**
 * An {@code @Idempotent} batch listener failed and its whole batch was rolled back: business writes
 * and claims of every message in it. The cause is the listener's exception.
 * <p>
 * Transport adapters must redeliver the whole batch: settling any message of it, even one before
 * the message the listener blamed, would lose work that was rolled back.
 *
 * @since 0.1.0
 */
public class IdempotentBatchFailedException extends IdempotencyException {

	public IdempotentBatchFailedException(String message, Throwable cause) {
		super(message, cause);
	}

}
