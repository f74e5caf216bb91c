package dev.idempotency.redis.filter;

import java.time.Duration;

import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.IdempotencyKey;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The keys that completed recently, in Redis, shared by every instance: one Redis key per completed
 * key, queued after commit and written with a time to live by a background thread
 * ({@link RecentKeysWriter}), so that a consumer thread does not wait for Redis after its commit.
 * Present is {@link Answer#COMPLETED} (only committed keys are ever written); absent is
 * {@link Answer#UNKNOWN} (expired, not written yet, dropped, never written because the instance died
 * between commit and write, or not completed): the store decides.
 * <p>
 * The time to live should cover the window in which a duplicate arrives through the broker's
 * retries and redeliveries; a replay older than it goes to the store.
 * <p>
 * As a bean, the filter stops in phase {@link #PHASE}: after the consumers that commit keys, before
 * the Redis connection factory, so that the keys still queued are sent while Redis can be reached.
 * A key learned after that is written at once, on the committing thread.
 *
 * @since 0.2.0
 */
public final class RedisRecentKeysFilter implements DuplicateFilter, SmartLifecycle, AutoCloseable {

	/**
	 * The phase in which the filter stops, sending the keys still queued: just above Spring Data
	 * Redis' connection factories (Lettuce and Jedis: phase 0), which Spring stops after it, and
	 * below everything that consumes messages and commits keys, which Spring stops before it: the
	 * listener containers (Kafka's {@code DEFAULT_PHASE - 100}, this starter's Redis Stream
	 * listeners), Spring Boot's web server ({@code DEFAULT_PHASE - 1024} and {@code - 2048}), and
	 * the task executors and schedulers ({@code DEFAULT_PHASE / 2}).
	 * @since 0.2.0
	 */
	public static final int PHASE = 1024;

	private final StringRedisTemplate redis;

	private final String prefix;

	private final Duration timeToLive;

	private final RecentKeysWriter writer;

	/**
	 * Creates the filter.
	 * @param redis the Redis the instances share
	 * @param prefix prepended to every Redis key, for example {@code idempotency:recent:}
	 * @param timeToLive how long a completed key is remembered
	 */
	public RedisRecentKeysFilter(StringRedisTemplate redis, String prefix, Duration timeToLive) {
		if (timeToLive.isNegative() || timeToLive.isZero()) {
			throw new IllegalArgumentException("timeToLive must be positive");
		}
		this.redis = redis;
		this.prefix = prefix;
		this.timeToLive = timeToLive;
		this.writer = new RecentKeysWriter(redis, timeToLive);
	}

	@Override
	public String name() {
		return "redis-recent";
	}

	@Override
	public Answer check(IdempotencyKey key) {
		return Boolean.TRUE.equals(this.redis.hasKey(redisKey(key))) ? Answer.COMPLETED : Answer.UNKNOWN;
	}

	/**
	 * Queues the key's write, sent by a background thread with the others gathered meanwhile (see
	 * {@link RecentKeysWriter}): until it lands, a duplicate of the key goes to the store.
	 */
	@Override
	public void learn(IdempotencyKey key) {
		this.writer.write(redisKey(key));
	}

	/**
	 * Learned keys that were not written: dropped because too many were waiting, or because Redis
	 * refused them. Their duplicates go to the store.
	 * @return keys dropped since the start
	 */
	public long dropped() {
		return this.writer.dropped();
	}

	/**
	 * Learned keys still waiting to be written.
	 * @return keys queued
	 */
	public int pendingWrites() {
		return this.writer.pending();
	}

	/** Starts the writer's thread again after {@link #stop()}; the constructor started it. */
	@Override
	public void start() {
		this.writer.start();
	}

	/**
	 * Sends the keys still queued and stops the writer's thread; a key learned after it is written
	 * at once, on the thread that learns it.
	 */
	@Override
	public void stop() {
		this.writer.stop();
	}

	@Override
	public boolean isRunning() {
		return this.writer.isRunning();
	}

	/**
	 * The phase of {@link #stop()}.
	 * @return {@link #PHASE}
	 */
	@Override
	public int getPhase() {
		return PHASE;
	}

	/** Same as {@link #stop()}, for use outside a Spring application context. */
	@Override
	public void close() {
		this.writer.close();
	}

	/**
	 * The time to live of a completed key.
	 * @return the time to live
	 */
	public Duration timeToLive() {
		return this.timeToLive;
	}

	private String redisKey(IdempotencyKey key) {
		return this.prefix + key.qualifiedName();
	}

}
