package dev.idempotency.redis.stream;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.redis.stream.metrics.RedisStreamMeters;
import dev.idempotency.testsupport.RedisServerProcess;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis restarted under a running listener, empty (no persistence): the connection is
 * re-established, the lost consumer group recreated (logged and counted), and what is added after
 * the restart is processed. Runs its own {@code redis-server}.
 */
class RedisStreamRedisRestartIntegrationTests {

	private static final String STREAM = "rs-restart-" + UUID.randomUUID().toString().substring(0, 8);

	private ConfigurableApplicationContext context;

	private RedisServerProcess redisServer;

	@AfterEach
	void stop() throws InterruptedException {
		if (this.context != null) {
			this.context.close();
		}
		if (this.redisServer != null) {
			this.redisServer.close();
		}
	}

	@Test
	void listenerResumesAndItsGroupIsRecreatedAfterRedisRestarts() throws Exception {
		this.redisServer = new RedisServerProcess();
		this.redisServer.start();
		this.context = new SpringApplicationBuilder(RestartApplication.class).web(WebApplicationType.NONE)
			.properties("it.stream=" + STREAM, "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + this.redisServer.port(), "spring.data.redis.timeout=2s",
					"spring.data.redis.connect-timeout=1s",
					"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
					"idempotency.store.type=in-memory", "idempotency.redis.stream.poll-timeout=200ms",
					"idempotency.redis.stream.min-idle=500ms", "idempotency.redis.stream.claim-interval=100ms",
					"idempotency.redis.stream.recovery-back-off=100ms")
			.run();
		StringRedisTemplate redis = this.context.getBean(StringRedisTemplate.class);
		MeterRegistry meters = this.context.getBean(MeterRegistry.class);
		Listener listener = this.context.getBean(Listener.class);
		RedisStreamListenerContainer container = this.context.getBean(RedisStreamListenerRegistry.class)
			.getListenerContainer("restart");
		await().atMost(10, TimeUnit.SECONDS).until(() -> container.getActiveSubscriptions() == 1);

		add(redis, STREAM, order("before-restart", 1));
		await().atMost(10, TimeUnit.SECONDS).until(() -> listener.applied().containsKey("before-restart"));

		this.redisServer.kill();
		await().atMost(10, TimeUnit.SECONDS).until(() -> container.getActiveSubscriptions() == 0);
		this.redisServer.start();

		// Added while the group is still missing: the group is recreated from the start of the stream.
		add(redis, STREAM, order("right-after-restart", 1));
		await().atMost(20, TimeUnit.SECONDS).until(() -> listener.applied().containsKey("right-after-restart"));
		add(redis, STREAM, order("later", 1));
		await().atMost(10, TimeUnit.SECONDS).until(() -> listener.applied().containsKey("later"));

		assertThat(StreamTestSupport.counter(meters, RedisStreamMeters.STREAM_GROUP_RECREATED, STREAM))
			.isGreaterThanOrEqualTo(1);
		assertThat(listener.applied().values()).allSatisfy((count) -> assertThat(count).hasValue(1));
		await().atMost(10, TimeUnit.SECONDS).until(() -> container.getActiveSubscriptions() == 1
				&& StreamTestSupport.gauge(meters, RedisStreamMeters.STREAM_SUBSCRIPTIONS_ACTIVE, STREAM) == 1);
		await().atMost(10, TimeUnit.SECONDS).until(() -> StreamTestSupport.pending(redis, STREAM, STREAM) == 0);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RestartApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Listener listener() {
			return new Listener();
		}

	}

	static class Listener {

		final Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();

		public Map<String, AtomicInteger> applied() {
			return this.applied;
		}

		@RedisStreamListener(id = "restart", stream = "${it.stream}", group = "${it.stream}")
		@Idempotent(key = "#order.orderId()")
		public void onOrder(Order order) {
			this.applied.computeIfAbsent(order.orderId(), (id) -> new AtomicInteger()).incrementAndGet();
		}

	}

}
