package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import dev.idempotency.testsupport.LocalRedisSentinel;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failover of a primary watched by three Sentinels (quorum 2, down after
 * {@value LocalRedisSentinel#DOWN_AFTER_MILLIS} ms), with the Redis store in redis-atomic mode and
 * the stream on the same Redis, through the Lettuce client Spring Boot configures from
 * {@code spring.data.redis.sentinel.*}: the primary is killed, the Sentinels promote the replica, and
 * the client, asking the Sentinels again as it reconnects, finds it. Every key and the stream are on
 * the killed primary: a claim, a completion or an {@code XADD} it acknowledged but had not replicated
 * is lost, and a lost completion runs its order again. That is the documented window of asynchronous
 * replication; the test measures it (printed) and fails only if it grows beyond the orders in flight
 * around the kill.
 */
class RedisStreamSentinelFailoverRedisStoreIntegrationTests extends AbstractRedisStreamFailoverIntegrationTests {

	private LocalRedisSentinel sentinel;

	@Override
	protected String[] startRedis() {
		this.sentinel = LocalRedisSentinel.start();
		return this.sentinel.properties();
	}

	@Override
	protected void stopRedis() {
		if (this.sentinel != null) {
			this.sentinel.close();
		}
	}

	LocalRedisSentinel sentinel() {
		return this.sentinel;
	}

	@Override
	protected int primaryOf(String key) {
		return this.sentinel.primary();
	}

	@Override
	protected void killAndAwaitFailover(int port) {
		assertThat(this.sentinel.killPrimary()).isEqualTo(port);
		this.sentinel.awaitFailover(port, Duration.ofSeconds(30));
	}

	@Override
	protected String topology() {
		return "Sentinel";
	}

	@Override
	protected String[] storeProperties() {
		return redisStoreProperties(this.run);
	}

	@Override
	protected void assertAppliedTwice(List<String> twice, Set<String> applied) {
		assertThat(twice).as("orders applied twice").hasSizeLessThan(ORDERS / 10);
	}

}
