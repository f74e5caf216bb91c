package dev.idempotency.store.redis;

import dev.idempotency.testsupport.TestRedisConnections;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis store's key details on the standalone test Redis.
 */
class RedisKeyDetailsIntegrationTests extends AbstractRedisKeyDetailsIntegrationTests {

	@Override
	protected RedisConnectionFactory connect() {
		return TestRedisConnections.connectionFactory();
	}

	@Override
	protected void disconnect(RedisConnectionFactory connectionFactory) {
		LettuceConnectionFactory lettuce = (LettuceConnectionFactory) connectionFactory;
		TestRedisConnections.deleteKeys(lettuce, this.prefix);
		// The details hashes are named {<entry>}:details, for the entry's cluster slot.
		TestRedisConnections.deleteKeys(lettuce, "{" + this.prefix);
		lettuce.destroy();
	}

}
