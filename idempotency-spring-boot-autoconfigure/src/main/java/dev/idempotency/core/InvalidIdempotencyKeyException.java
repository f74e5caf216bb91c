package dev.idempotency.core;

/**
 * The key could not be resolved: it is missing, blank, or its expression failed. Retrying the same
 * message cannot fix this, so transport adapters send it to the dead-letter destination at once.
 *
 * <p>
 * In a batch, {@link #getElementIndex()} names the message whose key failed, which is also the
 * number of messages before it: those were processed and committed, it and the ones after it were
 * not touched, and the delivery was not acknowledged. What a transport does with that is its
 * adapter's business.
 *
 * @since 0.1.0
 */
public class InvalidIdempotencyKeyException extends NonRetryableIdempotencyException {

	private final int elementIndex;

	public InvalidIdempotencyKeyException(String message) {
		super(message);
		this.elementIndex = -1;
	}

	public InvalidIdempotencyKeyException(String message, Throwable cause) {
		super(message, cause);
		this.elementIndex = -1;
	}

	/**
	 * Creates the exception for one message of a batch.
	 * @param message the detail message
	 * @param cause the key resolution failure
	 * @param elementIndex the message's index in the batch, from 0
	 */
	public InvalidIdempotencyKeyException(String message, Throwable cause, int elementIndex) {
		super(message, cause);
		this.elementIndex = elementIndex;
	}

	/**
	 * The index in the batch of the message whose key failed: the number of messages before it,
	 * processed and committed.
	 * @return the index, or {@code -1} outside a batch
	 */
	public int getElementIndex() {
		return this.elementIndex;
	}

}
