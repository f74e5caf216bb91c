package dev.idempotency.outbox;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Publishes messages through the transactional outbox: the message is written to the outbox table
 * inside the caller's transaction, so it is sent if and only if that transaction commits. The relay
 * sends it afterwards, at least once, with a {@code message-id} header that stays the same on
 * every re-send.
 * <p>
 * Destinations name a sender and its target: {@code kafka:orders} (topic {@code orders}),
 * {@code redis:orders} (stream {@code orders}). Without a known prefix the destination goes, whole,
 * to the only sender there is.
 *
 * @since 0.1.0
 */
public interface Outbox {

	/**
	 * Writes a message to the outbox in the current transaction.
	 * @param destination where it goes, e.g. {@code kafka:orders}
	 * @param key the message key (the Kafka record key; the unit of per-key ordering), or {@code null}
	 * @param payload the payload: a {@code String} is sent as it is, anything else as JSON
	 * @return the message's id, sent as the {@code message-id} header
	 * @throws org.springframework.transaction.IllegalTransactionStateException if no transaction
	 * of the outbox's {@code DataSource} is active (or it is read-only)
	 * @throws IllegalArgumentException if the destination is blank or the destination or key is
	 * too long for its column
	 */
	default String publish(String destination, @Nullable String key, Object payload) {
		return publish(destination, key, payload, Map.of());
	}

	/**
	 * Writes a message with extra headers to the outbox in the current transaction.
	 * @param destination where it goes, e.g. {@code kafka:orders}
	 * @param key the message key, or {@code null}
	 * @param payload the payload: a {@code String} is sent as it is, anything else as JSON
	 * @param headers extra headers (Kafka record headers, UTF-8; Redis Stream fields)
	 * @return the message's id, sent as the {@code message-id} header
	 * @throws org.springframework.transaction.IllegalTransactionStateException if no transaction
	 * of the outbox's {@code DataSource} is active (or it is read-only)
	 * @throws IllegalArgumentException if the destination is blank or the destination or key is
	 * too long for its column
	 */
	String publish(String destination, @Nullable String key, Object payload, Map<String, String> headers);

}
