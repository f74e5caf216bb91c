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

	/**
	 * Tells whether a failed send was the message's fault, so that it counts as one of the message's
	 * {@code maxAttempts} and, at the last, makes the row {@code DEAD}; or the broker's or the
	 * network's (unreachable, timed out, not enough replicas, disconnected), so that the row is sent
	 * again after a back-off without counting an attempt, however long the outage lasts.
	 * <p>
	 * Only failures that sending the same message again cannot cure (it cannot be serialized, is
	 * too large, names an invalid or forbidden destination) are the message's. A failure that would
	 * hit every message alike is not, even when it is permanent until someone fixes it: counting it
	 * would turn a whole backlog {@code DEAD} during an outage. Called on the relay's thread with
	 * whatever {@link #send} threw or its future completed with (possibly wrapped); must not throw.
	 * The relay never asks about its own send timeout, which is never the message's.
	 * <p>
	 * The default says every failure is the message's, as relays did before this method existed;
	 * senders that know their transport override it.
	 * @param failure the exception {@link #send} threw or completed its future with
	 * @return {@code true} if the failure counts towards the message's {@code maxAttempts}
	 * @since 0.1.0
	 */
	default boolean isMessageFailure(Throwable failure) {
		return true;
	}

}
