package dev.idempotency.testsupport;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Connections to the Redis the integration tests run against: the local one that
 * {@code scripts/test.sh} makes sure is running (override with system properties
 * {@code idempotency.test.redis.host} and {@code idempotency.test.redis.port}). Tests share it, so
 * each test class writes under a key prefix of its own.
 */
public final class TestRedisConnections {

	private TestRedisConnections() {
	}

	public static String host() {
		return System.getProperty("idempotency.test.redis.host", "127.0.0.1");
	}

	public static int port() {
		return Integer.getInteger("idempotency.test.redis.port", 6379);
	}

	/** A started connection factory on the test Redis; destroy it when done. */
	public static LettuceConnectionFactory connectionFactory() {
		return connectionFactory(host(), port());
	}

	/** A started connection factory on a port where nothing listens; destroy it when done. */
	public static LettuceConnectionFactory unreachable() {
		return connectionFactory("127.0.0.1", closedPort());
	}

	/** Spring Boot properties pointing {@code spring.data.redis} at the test Redis. */
	public static String[] properties() {
		return new String[] { "spring.data.redis.host=" + host(), "spring.data.redis.port=" + port() };
	}

	/** A key prefix no other test class or run uses. */
	public static String uniqueKeyPrefix(Class<?> testClass) {
		return "idempotency-test:" + testClass.getSimpleName() + ":" + UUID.randomUUID() + ":";
	}

	/** Deletes every key under {@code prefix}. */
	public static void deleteKeys(LettuceConnectionFactory connectionFactory, String prefix) {
		StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
		Set<String> keys = redis.keys(prefix + "*");
		if (keys != null && !keys.isEmpty()) {
			redis.delete(keys);
		}
	}

	private static LettuceConnectionFactory connectionFactory(String host, int port) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(host, port), client);
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		return connectionFactory;
	}

	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
