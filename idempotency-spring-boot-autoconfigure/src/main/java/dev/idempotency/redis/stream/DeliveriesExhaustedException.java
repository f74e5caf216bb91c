package dev.idempotency.redis.stream;

/**
 * A pending entry was delivered more often than {@code max-deliveries} allows and is given up
 * without another attempt (its last failure happened in another consumer, or was a crash).
 *
 * @since 0.1.0
 */
public class DeliveriesExhaustedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public DeliveriesExhaustedException(String message) {
		super(message);
	}

}
