package dev.idempotency.outbox;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One row of the outbox table, as the relay claimed it or an operator reads it.
 *
 * @param id the row's sequence number; it orders rows of one key, not commits
 * @param messageId the message's unique id, sent as the {@code message-id} header
 * @param destination where it goes, e.g. {@code kafka:orders} or {@code redis:orders}
 * @param key the message key (Kafka record key, per-key ordering), or {@code null}
 * @param payload the serialized payload (JSON unless a string was published)
 * @param headers extra headers sent with the message
 * @param status the row's state
 * @param attempts failed send attempts so far
 * @param createdAt when the row was written, inside the business transaction
 * @param claimedUntil end of the current relay's lease, or {@code null} when unclaimed
 * @param lastError the last failure, or {@code null}
 * @since 0.1.0
 */
public record OutboxMessage(long id, String messageId, String destination, @Nullable String key, String payload,
		Map<String, String> headers, OutboxStatus status, int attempts, Instant createdAt,
		@Nullable Instant claimedUntil, @Nullable String lastError) {

	public OutboxMessage {
		headers = Map.copyOf(headers);
	}

}
