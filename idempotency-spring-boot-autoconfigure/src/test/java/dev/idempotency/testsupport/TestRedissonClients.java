package dev.idempotency.testsupport;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.config.Config;

/**
 * Redisson clients on the Redis the integration tests run against ({@link TestRedisConnections}),
 * with small pools and short timeouts.
 */
public final class TestRedissonClients {

	private TestRedissonClients() {
	}

	/** A client on the test Redis; shut it down when done. */
	public static RedissonClient client() {
		return client(TestRedisConnections.host(), TestRedisConnections.port());
	}

	/** A client on {@code host:port}, e.g. a {@link TcpProxy}; shut it down when done. */
	public static RedissonClient client(String host, int port) {
		Config config = new Config();
		config.useSingleServer()
			.setAddress("redis://" + host + ":" + port)
			.setConnectionMinimumIdleSize(2)
			.setConnectionPoolSize(16)
			.setTimeout(1_000)
			.setConnectTimeout(1_000)
			.setRetryAttempts(1);
		return Redisson.create(config);
	}

	/** Deletes every key under {@code prefix}. */
	public static void deleteKeys(RedissonClient redisson, String prefix) {
		redisson.getKeys().delete(redisson.getKeys().getKeysStream(KeysScanOptions.defaults().pattern(prefix + "*"))
			.toArray(String[]::new));
	}

}
