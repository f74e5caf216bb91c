package dev.idempotency.core;

/**
 * The names of the fields (Redis Stream entry fields, Kafka record headers) with which the outbox
 * writes a message and the transport adapters read it back: the one place that defines the wire
 * format both sides share.
 *
 * @since 0.2.0
 */
public final class MessageFields {

	/**
	 * The message's id, written by the outbox relay as a Kafka header or a stream field; consumers
	 * take it as the delivery's message id, the default idempotency key.
	 */
	public static final String MESSAGE_ID = "message-id";

	/** The stream field holding the payload, the default of {@code idempotency.redis.stream.payload-field}. */
	public static final String PAYLOAD = "payload";

	/** The stream field holding the message key, when the message has one. */
	public static final String KEY = "key";

	/**
	 * The W3C trace context of the transaction that published an outbox message
	 * ({@code 00-<trace id>-<span id>-<flags>}), written by the relay as a Kafka header or a stream
	 * field when the outbox captured one.
	 */
	public static final String TRACEPARENT = "traceparent";

	private MessageFields() {
	}

}
