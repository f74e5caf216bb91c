package dev.idempotency.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.redis.filter.RedisRecentKeysFilter;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing an application whose Redis is 20 ms away (a delaying proxy in front of the real Redis),
 * with Spring Boot's Redis auto-configuration and the starter's filter chain on the real PostgreSQL:
 * every key committed before the close lands in Redis, although Boot stops its Redis connection
 * factory in the same close; a key committed by a component that stops after the writer still lands
 * while Redis is up, and one committed after the connection factory stopped is counted and logged,
 * never dropped silently.
 */
@ExtendWith(OutputCaptureExtension.class)
class RecentKeysShutdownIntegrationTests {

	private static final String PREFIX = TestRedisConnections.uniqueKeyPrefix(RecentKeysShutdownIntegrationTests.class);

	private static final String NAMESPACE = "it-recent-close-" + System.nanoTime();

	/** Each direction: a round trip to Redis takes 20 ms more than on loopback. */
	private static final Duration LATENCY = Duration.ofMillis(10);

	private static LettuceConnectionFactory redis;

	private static StringRedisTemplate template;

	private TcpProxy proxy;

	@BeforeAll
	static void connect() {
		redis = TestRedisConnections.connectionFactory();
		template = new StringRedisTemplate(redis);
	}

	@AfterAll
	static void deleteKeys() {
		try {
			TestRedisConnections.deleteKeys(redis, PREFIX);
		}
		finally {
			redis.destroy();
		}
	}

	@AfterEach
	void closeProxy() {
		if (this.proxy != null) {
			this.proxy.close();
		}
	}

	@Test
	void everyKeyCommittedBeforeTheCloseLands() {
		String run = "all-" + System.nanoTime();
		ConfigurableApplicationContext context = start(run);
		RedisRecentKeysFilter recent = context.getBean(RedisRecentKeysFilter.class);
		Orders orders = context.getBean(Orders.class);
		List<String> ids = IntStream.range(0, 400).mapToObj((i) -> run + "-" + i).toList();
		// Eight consumer threads, as a listener container with that concurrency: each delivery asks
		// Redis once (20 ms) before its commit.
		ExecutorService consumers = Executors.newFixedThreadPool(8);
		try {
			CompletableFuture.allOf(ids.stream()
				.map((id) -> CompletableFuture.runAsync(() -> deliver(orders, id), consumers))
				.toArray(CompletableFuture[]::new)).join();
		}
		finally {
			consumers.shutdown();
		}
		context.close();
		assertThat(template.countExistingKeys(redisKeys(ids))).as("keys in Redis after the close").isEqualTo(400);
		assertThat(recent.dropped()).isZero();
		assertThat(recent.pendingWrites()).isZero();
	}

	@Test
	void aLateCommitLandsWhileRedisIsUpAndIsCountedAndLoggedAfter(CapturedOutput output) {
		String run = "late-" + System.nanoTime();
		ConfigurableApplicationContext context = start(run, "it.late=true");
		RedisRecentKeysFilter recent = context.getBean(RedisRecentKeysFilter.class);
		deliver(context.getBean(Orders.class), run + "-early");
		context.close();
		assertThat(template.countExistingKeys(redisKeys(List.of(run + "-early", run + "-after-writer"))))
			.as("keys committed before the close and after the writer stopped")
			.isEqualTo(2);
		assertThat(template.hasKey(redisKeys(List.of(run + "-after-redis")).get(0))).isFalse();
		assertThat(recent.dropped()).isOne();
		assertThat(output).contains("Could not write recently completed keys to Redis (1 dropped so far)");
	}

	private ConfigurableApplicationContext start(String run, String... extra) {
		this.proxy = TcpProxy.start(TestRedisConnections.host(), TestRedisConnections.port(), LATENCY);
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + this.proxy.port(),
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.store.type=jdbc", "idempotency.filter.enabled=true",
				"idempotency.filter.layers=redis-recent", "idempotency.filter.recent.key-prefix=" + PREFIX,
				"it.namespace=" + NAMESPACE, "it.run=" + run));
		properties.addAll(List.of(extra));
		return new SpringApplicationBuilder(TestApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	private static List<String> redisKeys(List<String> ids) {
		return ids.stream().map((id) -> PREFIX + NAMESPACE + ":" + id).toList();
	}

	private static void deliver(Orders orders, String orderId) {
		DeliveryContextHolder.set(new DeliveryContext(orderId, null, Map.of(), () -> {
		}, List.of()));
		try {
			orders.apply(orderId);
		}
		finally {
			DeliveryContextHolder.clear();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class TestApplication {

		@Bean
		Orders orders() {
			return new Orders();
		}

		/** Commits while the application stops: after the recent keys' writer, before Redis. */
		@Bean
		@ConditionalOnBooleanProperty("it.late")
		LateOrder lateOrderAfterTheWriter(Orders orders, Environment environment) {
			return new LateOrder(orders, environment.getProperty("it.run") + "-after-writer",
					RedisRecentKeysFilter.PHASE - 1);
		}

		/** Commits after Spring Boot's Redis connection factory stopped (phase 0). */
		@Bean
		@ConditionalOnBooleanProperty("it.late")
		LateOrder lateOrderAfterRedis(Orders orders, Environment environment) {
			return new LateOrder(orders, environment.getProperty("it.run") + "-after-redis", -1);
		}

	}

	static class Orders {

		@Idempotent(key = "#p0", namespace = "${it.namespace}")
		public void apply(String orderId) {
		}

	}

	/** A component that commits one order when it is stopped, in its phase. */
	static final class LateOrder implements SmartLifecycle {

		private final Orders orders;

		private final String orderId;

		private final int phase;

		private volatile boolean running;

		LateOrder(Orders orders, String orderId, int phase) {
			this.orders = orders;
			this.orderId = orderId;
			this.phase = phase;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			deliver(this.orders, this.orderId);
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return this.phase;
		}

	}

}
