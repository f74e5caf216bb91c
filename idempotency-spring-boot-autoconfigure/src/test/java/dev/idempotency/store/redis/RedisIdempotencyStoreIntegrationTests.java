package dev.idempotency.store.redis;

import dev.idempotency.testsupport.TestRedisConnections;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis store's contract on the standalone test Redis.
 */
class RedisIdempotencyStoreIntegrationTests extends AbstractRedisIdempotencyStoreIntegrationTests {

	@Override
	protected RedisConnectionFactory connect() {
		return TestRedisConnections.connectionFactory();
	}

	@Override
	protected void disconnect(RedisConnectionFactory connectionFactory) {
		TestRedisConnections.deleteKeys((LettuceConnectionFactory) connectionFactory, this.prefix);
		((LettuceConnectionFactory) connectionFactory).destroy();
	}

}
