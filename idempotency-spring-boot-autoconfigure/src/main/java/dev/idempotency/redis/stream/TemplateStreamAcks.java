package dev.idempotency.redis.stream;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Acknowledges each entry at once through a template: for entries read outside a consumer's read
 * loop (own pending entries, claims) and for {@link RedisStreamAcknowledger}'s public constructor.
 */
final class TemplateStreamAcks implements StreamAcks {

	private final StringRedisTemplate redis;

	private final String stream;

	private final String group;

	TemplateStreamAcks(StringRedisTemplate redis, String stream, String group) {
		this.redis = redis;
		this.stream = stream;
		this.group = group;
	}

	@Override
	public void acknowledge(RecordId recordId) {
		this.redis.opsForStream().acknowledge(this.stream, this.group, recordId.getValue());
	}

	@Override
	public <T> @Nullable T execute(RedisCallback<T> action) {
		return this.redis.execute(action, true);
	}

	@Override
	public void flush() {
	}

}
