package dev.idempotency.outbox;

import java.util.concurrent.CompletableFuture;

/**
 * Sends outbox messages to one kind of broker. The relay picks a sender by the destination's prefix
 * ({@link #scheme()} followed by {@code ':'}); a destination without a known prefix goes to the only
 * sender there is.
 *
 * @since 0.1.0
 */
public interface OutboxSender {

	/**
	 * The destination prefix this sender serves, without the colon, e.g. {@code kafka}.
	 * @return the scheme
	 */
	String scheme();

	/**
	 * Starts sending one message. The returned future completes when the broker has durably
	 * accepted the message (for Kafka: the producer's acknowledgement, as {@code acks} says), and
	 * completes exceptionally when it has not; only then is the row marked sent. The message must
	 * carry {@link OutboxMessage#messageId()} as its {@code message-id} header or field.
	 * @param target the destination without the scheme prefix: a topic or a stream key
	 * @param message the message
	 * @return completes on the broker's acknowledgement; may complete on another thread
	 * @throws RuntimeException if the send cannot even start (treated like a failed future)
	 */
	CompletableFuture<?> send(String target, OutboxMessage message);

}
