package dev.idempotency.store.redis;

import dev.idempotency.testsupport.LocalRedisCluster;
import dev.idempotency.testsupport.LocalRedisSentinel;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Lettuce client that Spring Boot configures from a local Redis Cluster's or Sentinel set-up's
 * {@code spring.data.redis.*} properties, in an application context of its own that has only Boot's
 * Redis auto-configuration. {@link #close()} closes the context, then the set-up.
 */
final class BootRedisClient implements AutoCloseable {

	private final Runnable closeRedis;

	private final ConfigurableApplicationContext context;

	private BootRedisClient(Runnable closeRedis, String[] properties) {
		this.closeRedis = closeRedis;
		try {
			this.context = new SpringApplicationBuilder(Client.class).web(WebApplicationType.NONE)
				.properties(properties)
				.properties("spring.data.redis.timeout=5s")
				.run();
		}
		catch (RuntimeException ex) {
			closeRedis.run();
			throw ex;
		}
	}

	/**
	 * Starts Spring Boot's cluster client on {@code cluster}; closes the cluster if it cannot.
	 * @param cluster the cluster, closed with the client
	 * @return the client
	 */
	static BootRedisClient on(LocalRedisCluster cluster) {
		return new BootRedisClient(cluster::close, cluster.properties());
	}

	/**
	 * Starts Spring Boot's Sentinel client on {@code sentinel}; closes the set-up if it cannot.
	 * @param sentinel the Sentinel set-up, closed with the client
	 * @return the client
	 */
	static BootRedisClient on(LocalRedisSentinel sentinel) {
		return new BootRedisClient(sentinel::close, sentinel.properties());
	}

	RedisConnectionFactory connectionFactory() {
		return this.context.getBean(RedisConnectionFactory.class);
	}

	@Override
	public void close() {
		try {
			this.context.close();
		}
		finally {
			this.closeRedis.run();
		}
	}

	@SpringBootConfiguration
	@ImportAutoConfiguration(DataRedisAutoConfiguration.class)
	static class Client {

	}

}
