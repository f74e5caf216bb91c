package dev.idempotency.http;

import java.util.ArrayList;
import java.util.List;

import dev.idempotency.testsupport.TestRedisConnections;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The HTTP transport on the Redis store (leased in every mode), without a database.
 */
class HttpIdempotencyRedisIntegrationTests extends AbstractHttpIdempotencyIntegrationTests {

	private static final String PREFIX = TestRedisConnections
		.uniqueKeyPrefix(HttpIdempotencyRedisIntegrationTests.class);

	@Override
	protected String[] storeProperties() {
		List<String> properties = new ArrayList<>(List.of(TestRedisConnections.properties()));
		properties.add("idempotency.store.type=redis");
		properties.add("idempotency.redis.key-prefix=" + PREFIX);
		properties.add("spring.autoconfigure.exclude="
				+ "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
		return properties.toArray(String[]::new);
	}

	@Override
	protected void cleanUpStore() {
		LettuceConnectionFactory connectionFactory = TestRedisConnections.connectionFactory();
		try {
			TestRedisConnections.deleteKeys(connectionFactory, PREFIX);
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Override
	protected String storeName() {
		return "redis";
	}

}
