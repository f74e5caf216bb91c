package dev.idempotency.benchmarks.jmh;

import org.springframework.integration.redis.metadata.RedisMetadataStore;

/**
 * Spring Integration's {@link RedisMetadataStore}: {@code putIfAbsent} is {@code HSETNX} on one hash
 * (plus {@code HGET} when the field exists), no expiry. Like its JDBC sibling, Spring Integration's
 * selector does not remove a key after a failure; {@link #release} does it here so that a failed
 * delivery is not lost (nothing fails in the benchmark).
 */
final class SpringIntegrationRedisDedup implements RedisDedup {

	private final RedisMetadataStore store;

	SpringIntegrationRedisDedup(Bench bench) {
		String name = bench.redis().key("si");
		bench.redis().deleteOnClose(name);
		this.store = new RedisMetadataStore(bench.redis().template(), name);
	}

	@Override
	public boolean claim(String key) {
		return this.store.putIfAbsent(key, Long.toString(System.currentTimeMillis())) == null;
	}

	@Override
	public void release(String key) {
		this.store.remove(key);
	}

}
