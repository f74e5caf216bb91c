package dev.idempotency.outbox;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.idempotency.core.DeliveryContext;

import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Sends outbox messages to Redis Streams with {@code XADD}: one entry per message whose fields are
 * the message's headers, then {@value #KEY_FIELD} (when the message has a key),
 * {@value DeliveryContext#MESSAGE_ID_HEADER} and {@value #PAYLOAD_FIELD} (the JSON payload). The
 * entry id is assigned by Redis. {@code XADD} returns once Redis has the entry; with persistence or
 * replicas, how durable it is depends on Redis' own settings ({@code appendfsync}, {@code WAIT}).
 *
 * @since 0.1.0
 */
public class RedisStreamOutboxSender implements OutboxSender {

	/** The destination prefix of Redis Streams. */
	public static final String SCHEME = "redis";

	/** Field holding the payload. */
	public static final String PAYLOAD_FIELD = "payload";

	/** Field holding the message key. */
	public static final String KEY_FIELD = "key";

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
		fields.put(DeliveryContext.MESSAGE_ID_HEADER, message.messageId());
		fields.put(PAYLOAD_FIELD, message.payload());
		try {
			RecordId id = this.redis.opsForStream().add(StreamRecords.string(fields).withStreamKey(stream));
			return CompletableFuture.completedFuture(id);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}
