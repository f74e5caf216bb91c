package dev.idempotency.benchmarks.support;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Connections to the Redis server under test ({@code bench.redis.host}, {@code bench.redis.port},
 * {@code bench.redis.database}; default 127.0.0.1:6379, database 15 so that other users of the server
 * are not disturbed): a raw Lettuce connection and a Spring Data Redis template on Lettuce, both
 * opened at first use. Every key the benchmark writes contains the run id; keys of hashes and sets
 * registered with {@link #deleteOnClose} are removed after the run, the others expire.
 */
public final class RedisConnections implements AutoCloseable {

	private final String runId;

	private final List<String> keysToDelete = new ArrayList<>();

	private RedisClient client;

	private StatefulRedisConnection<String, String> connection;

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate template;

	public RedisConnections(String runId) {
		this.runId = runId;
	}

	public static String host() {
		return System.getProperty("bench.redis.host", "127.0.0.1");
	}

	public static int port() {
		return Integer.getInteger("bench.redis.port", 6379);
	}

	public static int database() {
		return Integer.getInteger("bench.redis.database", 15);
	}

	/** A key name unique to this run: {@code bench:<what>:<runId>}. */
	public String key(String what) {
		return "bench:" + what + ":" + this.runId;
	}

	/** One thread-safe Lettuce connection (commands from many threads are pipelined on it). */
	public synchronized StatefulRedisConnection<String, String> lettuce() {
		if (this.connection == null) {
			this.client = RedisClient.create(RedisURI.builder().withHost(host()).withPort(port())
				.withDatabase(database()).build());
			this.connection = this.client.connect();
		}
		return this.connection;
	}

	/** Spring Data Redis on Lettuce, as an application's auto-configured connection factory is. */
	public synchronized LettuceConnectionFactory connectionFactory() {
		if (this.connectionFactory == null) {
			RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(host(), port());
			configuration.setDatabase(database());
			this.connectionFactory = new LettuceConnectionFactory(configuration);
			this.connectionFactory.afterPropertiesSet();
			this.connectionFactory.start();
		}
		return this.connectionFactory;
	}

	public synchronized StringRedisTemplate template() {
		if (this.template == null) {
			this.template = new StringRedisTemplate(connectionFactory());
		}
		return this.template;
	}

	public synchronized void deleteOnClose(String key) {
		this.keysToDelete.add(key);
	}

	@Override
	public synchronized void close() {
		if (!this.keysToDelete.isEmpty()) {
			try {
				lettuce().sync().del(this.keysToDelete.toArray(String[]::new));
			}
			catch (RuntimeException ex) {
				// best effort
			}
		}
		if (this.connection != null) {
			this.connection.close();
			this.client.shutdown();
		}
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
	}

}
