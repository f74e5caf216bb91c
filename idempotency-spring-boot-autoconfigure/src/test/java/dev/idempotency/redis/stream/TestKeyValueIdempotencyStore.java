package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.KeyValueIdempotencyStore;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A minimal leased Redis store for the stream tests, standing in for the real Redis store until it
 * is merged: {@code SET key token NX PX lease} claims, a completed key holds {@value #DONE}.
 */
class TestKeyValueIdempotencyStore implements KeyValueIdempotencyStore {

	static final String DONE = "DONE";

	private static final RedisScript<Long> COMPARE_AND_SET = new DefaultRedisScript<>("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
			  return 1
			end
			return 0
			""", Long.class);

	private static final RedisScript<Long> COMPARE_AND_DELETE = new DefaultRedisScript<>("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  return redis.call('DEL', KEYS[1])
			end
			return 0
			""", Long.class);

	private final StringRedisTemplate redis;

	private final String prefix;

	final AtomicInteger separateCompletions = new AtomicInteger();

	TestKeyValueIdempotencyStore(StringRedisTemplate redis, String prefix) {
		this.redis = redis;
		this.prefix = prefix;
	}

	@Override
	public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
		String token = UUID.randomUUID().toString();
		Boolean set = this.redis.opsForValue().setIfAbsent(storageKey(key), token, lease);
		if (Boolean.TRUE.equals(set)) {
			return ClaimResult.claimed(token);
		}
		String current = this.redis.opsForValue().get(storageKey(key));
		if (current == null) {
			return claim(key, lease, retention);
		}
		return DONE.equals(current) ? ClaimResult.duplicate() : ClaimResult.inProgress();
	}

	@Override
	public void complete(IdempotencyKey key, ClaimResult claim, Duration retention) {
		this.separateCompletions.incrementAndGet();
		this.redis.execute(COMPARE_AND_SET, List.of(storageKey(key)), claim.token(), DONE,
				String.valueOf(retention.toMillis()));
	}

	@Override
	public void release(IdempotencyKey key, ClaimResult claim) {
		this.redis.execute(COMPARE_AND_DELETE, List.of(storageKey(key)), claim.token());
	}

	@Override
	public boolean isTransactional() {
		return false;
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public String storageKey(IdempotencyKey key) {
		return this.prefix + key.namespace() + ":" + key.value();
	}

	@Override
	public String claimedValue(ClaimResult claim) {
		return claim.token();
	}

	@Override
	public String completedValue() {
		return DONE;
	}

}
