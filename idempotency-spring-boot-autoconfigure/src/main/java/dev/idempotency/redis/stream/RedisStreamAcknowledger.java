package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.CompletingAcknowledger;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.KeyValueIdempotencyStore;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Acknowledges one stream entry (XACK). With a {@link KeyValueIdempotencyStore} it completes the
 * claim and acknowledges in one Lua script (the redis-atomic mode): the key is marked completed
 * and the entry acknowledged together, or neither. That needs the store's entries on the same
 * Redis as the stream; on another server the script finds no claim, declines, and the interceptor
 * completes and acknowledges in two steps.
 *
 * @since 0.1.0
 */
public class RedisStreamAcknowledger implements CompletingAcknowledger {

	private final StringRedisTemplate redis;

	private final String stream;

	private final String group;

	private final String recordId;

	private volatile boolean acknowledged;

	public RedisStreamAcknowledger(StringRedisTemplate redis, String stream, String group, String recordId) {
		this.redis = redis;
		this.stream = stream;
		this.group = group;
		this.recordId = recordId;
	}

	@Override
	public void acknowledge() {
		this.redis.opsForStream().acknowledge(this.stream, this.group, this.recordId);
		this.acknowledged = true;
	}

	@Override
	public boolean completeAndAcknowledge(IdempotencyStore store, IdempotencyKey key, ClaimResult claim,
			Duration retention) {
		if (!(store instanceof KeyValueIdempotencyStore keyValue)) {
			return false;
		}
		Long done = this.redis.execute(RedisStreamScripts.COMPLETE_AND_ACKNOWLEDGE,
				List.of(keyValue.storageKey(key), this.stream), keyValue.claimedValue(claim),
				keyValue.completedValue(), String.valueOf(Math.max(1, retention.toMillis())), this.group,
				this.recordId);
		if (done != null && done == 1L) {
			this.acknowledged = true;
			return true;
		}
		return false;
	}

	/**
	 * Whether the entry was acknowledged through this acknowledger.
	 * @return {@code true} once XACK was sent successfully
	 */
	public boolean isAcknowledged() {
		return this.acknowledged;
	}

}
