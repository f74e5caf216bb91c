package dev.idempotency.outbox.redis;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.idempotency.core.MessageFields;
import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxSender;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Sends outbox messages to Redis Streams with {@code XADD}: one entry per message whose fields are
 * the message's headers, then {@value MessageFields#TRACEPARENT} (when the outbox captured the
 * publisher's trace context and the headers have none), {@value #KEY_FIELD} (when the message has a key),
 * {@value MessageFields#MESSAGE_ID} and {@value #PAYLOAD_FIELD} (the JSON payload). The
 * entry id is assigned by Redis. {@code XADD} returns once Redis has the entry; with persistence or
 * replicas, how durable it is depends on Redis' own settings ({@code appendfsync}, {@code WAIT}).
 * <p>
 * Which failures are the message's is decided by {@link #isMessageFailure(Throwable)}.
 *
 * @since 0.1.0
 */
public class RedisStreamOutboxSender implements OutboxSender {

	/** The destination prefix of Redis Streams. */
	public static final String SCHEME = "redis";

	/** Field holding the payload. */
	public static final String PAYLOAD_FIELD = MessageFields.PAYLOAD;

	/** Field holding the message key. */
	public static final String KEY_FIELD = MessageFields.KEY;

	private final StringRedisTemplate redis;

	public RedisStreamOutboxSender(StringRedisTemplate redis) {
		this.redis = redis;
	}

	@Override
	public String scheme() {
		return SCHEME;
	}

	@Override
	public CompletableFuture<?> send(String stream, OutboxMessage message) {
		Map<String, String> fields = new LinkedHashMap<>(message.headers());
		if (message.key() != null) {
			fields.put(KEY_FIELD, message.key());
		}
		String traceparent = message.traceparent();
		if (traceparent != null) {
			fields.putIfAbsent(MessageFields.TRACEPARENT, traceparent);
		}
		fields.put(MessageFields.MESSAGE_ID, message.messageId());
		fields.put(PAYLOAD_FIELD, message.payload());
		try {
			RecordId id = this.redis.opsForStream().add(StreamRecords.string(fields).withStreamKey(stream));
			return CompletableFuture.completedFuture(id);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * A failure is the message's only when Redis answered the {@code XADD} itself with an error
	 * that sending it again cannot cure: {@code WRONGTYPE} (the key holds something other than a
	 * stream), {@code NOPERM} (the user may not write that key) or a plain {@code ERR} reply. A
	 * connection that cannot be made or was lost ({@code RedisConnectionFailureException}, any
	 * {@link DataAccessResourceFailureException}), a command or connect timeout
	 * ({@code QueryTimeoutException}, any {@link TransientDataAccessException}), a server that is
	 * loading, busy, read-only, out of memory or without its cluster, and anything unknown are the
	 * infrastructure's: they would fail every message alike.
	 * @param failure what {@link #send} completed its future with
	 * @return whether the failure counts towards the message's attempts
	 */
	@Override
	public boolean isMessageFailure(Throwable failure) {
		int depth = 0;
		for (Throwable cause = failure; cause != null && depth < 16; cause = cause.getCause(), depth++) {
			if (cause instanceof DataAccessResourceFailureException || cause instanceof TransientDataAccessException) {
				return false;
			}
			String message = cause.getMessage();
			if (message != null && (message.startsWith("WRONGTYPE ") || message.startsWith("NOPERM ")
					|| message.startsWith("ERR "))) {
				return true;
			}
		}
		return false;
	}

}
