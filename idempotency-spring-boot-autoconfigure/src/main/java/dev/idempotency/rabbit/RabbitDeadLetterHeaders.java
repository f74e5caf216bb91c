package dev.idempotency.rabbit;

/**
 * The headers with which the adapter dead-letters a message (the names of Spring AMQP's
 * {@code RepublishMessageRecoverer} where it has one), and which a re-drive removes.
 *
 * @since 0.2.0
 */
public final class RabbitDeadLetterHeaders {

	/**
	 * The fully qualified class name of the failure, as the listener, the converter or the
	 * interceptor threw it.
	 */
	public static final String EXCEPTION_TYPE = "x-exception-type";

	/** That failure's message. */
	public static final String EXCEPTION_MESSAGE = "x-exception-message";

	/** The failure's stack trace, cut to a few kilobytes. */
	public static final String EXCEPTION_STACKTRACE = "x-exception-stacktrace";

	/** Whose fault it was: {@code bad-input}, {@code not-retryable} or {@code attempts-exhausted}. */
	public static final String REASON = "x-idempotency-reason";

	/** The queue the message was consumed from. */
	public static final String ORIGINAL_QUEUE = "x-original-queue";

	/** The exchange the message had been published to. */
	public static final String ORIGINAL_EXCHANGE = "x-original-exchange";

	/** The routing key the message had been published with. */
	public static final String ORIGINAL_ROUTING_KEY = "x-original-routingKey";

	/** Attempts made in the delivery that gave the message up. */
	public static final String ATTEMPTS = "x-idempotency-attempts";

	private RabbitDeadLetterHeaders() {
	}

	/**
	 * Whether a header is one of those the adapter adds when it dead-letters.
	 * @param name the header's name
	 * @return {@code true} for the adapter's dead-letter headers
	 */
	static boolean isDeadLetterHeader(String name) {
		return name.equals(EXCEPTION_TYPE) || name.equals(EXCEPTION_MESSAGE) || name.equals(EXCEPTION_STACKTRACE)
				|| name.equals(REASON) || name.equals(ORIGINAL_QUEUE) || name.equals(ORIGINAL_EXCHANGE)
				|| name.equals(ORIGINAL_ROUTING_KEY) || name.equals(ATTEMPTS);
	}

}
