package dev.idempotency.redis.stream;

/**
 * An entry's payload is missing or cannot be converted to the listener's parameter type. Not
 * retryable: the entry goes to the dead-letter stream at once.
 *
 * @since 0.1.0
 */
public class RedisStreamPayloadException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public RedisStreamPayloadException(String message, Throwable cause) {
		super(message, cause);
	}

	public RedisStreamPayloadException(String message) {
		super(message);
	}

}
