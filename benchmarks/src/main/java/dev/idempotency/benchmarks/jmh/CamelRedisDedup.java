package dev.idempotency.benchmarks.jmh;

import org.apache.camel.component.redis.processor.idempotent.SpringRedisIdempotentRepository;

/**
 * Apache Camel's {@link SpringRedisIdempotentRepository} (camel-spring-redis) on a Spring Data Redis
 * template: {@code add} is {@code SISMEMBER} then {@code SADD} on one set per repository (two round
 * trips, no expiry); {@code remove} on failure, as Camel's idempotent consumer does.
 */
final class CamelRedisDedup implements RedisDedup {

	private final SpringRedisIdempotentRepository repository;

	CamelRedisDedup(Bench bench) {
		String name = bench.redis().key("camel");
		bench.redis().deleteOnClose(name);
		this.repository = new SpringRedisIdempotentRepository(bench.redis().template(), name);
		this.repository.start();
	}

	@Override
	public boolean claim(String key) {
		return this.repository.add(key);
	}

	@Override
	public void completed(String key) {
		this.repository.confirm(key);
	}

	@Override
	public void release(String key) {
		this.repository.remove(key);
	}

}
