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
 * @param traceparent the W3C trace context of the publishing transaction, sent as the
 * {@code traceparent} header or field, or {@code null} when none was captured (since 0.2.0)
 * @since 0.1.0
 */
public record OutboxMessage(long id, String messageId, String destination, @Nullable String key, String payload,
		Map<String, String> headers, OutboxStatus status, int attempts, Instant createdAt,
		@Nullable Instant claimedUntil, @Nullable String lastError, @Nullable String traceparent) {

	public OutboxMessage {
		headers = Map.copyOf(headers);
	}

	/**
	 * A row without a captured trace context (the constructor of 0.1).
	 * @param id the row's sequence number
	 * @param messageId the message's unique id
	 * @param destination where it goes
	 * @param key the message key, or {@code null}
	 * @param payload the serialized payload
	 * @param headers extra headers
	 * @param status the row's state
	 * @param attempts failed send attempts so far
	 * @param createdAt when the row was written
	 * @param claimedUntil end of the current relay's lease, or {@code null}
	 * @param lastError the last failure, or {@code null}
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #OutboxMessage(long, String, String, String, String,
	 * Map, OutboxStatus, int, Instant, Instant, String, String)} with a {@code null} trace context
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public OutboxMessage(long id, String messageId, String destination, @Nullable String key, String payload,
			Map<String, String> headers, OutboxStatus status, int attempts, Instant createdAt,
			@Nullable Instant claimedUntil, @Nullable String lastError) {
		this(id, messageId, destination, key, payload, headers, status, attempts, createdAt, claimedUntil, lastError,
				null);
	}

}
