package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.awaitEverySubscriptionActive;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static dev.idempotency.redis.stream.StreamTestSupport.pending;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The redis-atomic mode: a Redis key-value idempotency store on the same Redis as the stream, the
 * claim completed and the entry acknowledged by one script. No DataSource, no transaction manager.
 * The store is the starter's {@link RedisIdempotencyStore}, counting completions it is asked to do
 * separately.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisStreamAtomicModeIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final String ORDERS = "rs-atomic-orders-" + RUN;

	private static final String RACE = "rs-atomic-race-" + RUN;

	private static final String PREFIX = "rs-atomic-idem-" + RUN + ":";

	private ConfigurableApplicationContext context;

	private StringRedisTemplate redis;

	private MeterRegistry meters;

	private Listeners listeners;

	private CountingRedisStore store;

	@BeforeAll
	void start() {
		this.context = new SpringApplicationBuilder(AtomicApplication.class).web(WebApplicationType.NONE)
			.properties("it.run=" + RUN, "it.prefix=" + PREFIX, "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=6379", "spring.data.redis.timeout=5s",
					"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
					"idempotency.retention=1h", "idempotency.lease=10s", "idempotency.redis.stream.batch-size=1",
					"idempotency.redis.stream.poll-timeout=200ms", "idempotency.redis.stream.min-idle=400ms",
					"idempotency.redis.stream.claim-interval=100ms",
					// One delivery only: waiting for another consumer's claim must not use it up.
					"idempotency.redis.stream.max-deliveries=1")
			.run();
		this.redis = this.context.getBean(StringRedisTemplate.class);
		this.meters = this.context.getBean(MeterRegistry.class);
		this.listeners = this.context.getBean(Listeners.class);
		this.store = this.context.getBean(CountingRedisStore.class);
		awaitEverySubscriptionActive(this.context, Duration.ofSeconds(10));
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			// Stop reading first: deleting a stream under a running listener would recreate its group.
			this.context.getBean(RedisStreamListenerRegistry.class).stop();
			this.redis.delete(List.of(ORDERS, ORDERS + ".dlq", RACE, RACE + ".dlq"));
			Set<String> keys = this.redis.keys(PREFIX + "*");
			if (keys != null && !keys.isEmpty()) {
				this.redis.delete(keys);
			}
			this.context.close();
		}
	}

	@Test
	void entryAddedTwiceIsAppliedOnceAndCompletedWithItsAcknowledgementInOneScript() {
		for (int i = 0; i < 20; i++) {
			add(this.redis, ORDERS, order("a-" + i, 10));
			add(this.redis, ORDERS, order("a-" + i, 10));
		}
		await().atMost(30, TimeUnit.SECONDS)
			.until(() -> StreamTestSupport.invocations(this.meters, ORDERS, "duplicate") >= 20);
		assertThat(StreamTestSupport.invocations(this.meters, ORDERS, "processed")).isEqualTo(20);
		assertThat(this.listeners.applied()).hasSize(20).allSatisfy((orderId, count) -> assertThat(count).hasValue(1));
		await().atMost(10, TimeUnit.SECONDS).until(() -> pending(this.redis, ORDERS, ORDERS) == 0);
		for (int i = 0; i < 20; i++) {
			// The default namespace (the group, then the listener method), its ':' escaped by the store.
			String key = PREFIX + ORDERS + "%3AListeners#onOrder:a-" + i;
			assertThat(this.redis.opsForValue().get(key)).isEqualTo(this.store.completedValue());
			assertThat(this.redis.getExpire(key, TimeUnit.SECONDS)).isBetween(Duration.ofMinutes(59).toSeconds(),
					Duration.ofHours(1).toSeconds());
		}
		// The completing acknowledger did it; the store was never asked to complete separately.
		assertThat(this.store.separateCompletions).hasValue(0);
	}

	@Test
	void racingConsumersOfOneKeyApplyItOnceAndTheLoserIsAcknowledgedAsADuplicateLater() {
		add(this.redis, RACE, order("race-1", 1));
		add(this.redis, RACE, order("race-1", 1));
		await().atMost(20, TimeUnit.SECONDS)
			.until(() -> StreamTestSupport.invocations(this.meters, RACE, "duplicate") >= 1
					&& pending(this.redis, RACE, RACE) == 0);
		assertThat(this.listeners.raceApplied().get("race-1")).hasValue(1);
		assertThat(StreamTestSupport.invocations(this.meters, RACE, "in_progress")).isGreaterThanOrEqualTo(1);
		// max-deliveries is 1, yet nothing was dead-lettered: in-progress is not a failed delivery.
		assertThat(this.redis.hasKey(RACE + ".dlq")).isFalse();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class AtomicApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		CountingRedisStore countingRedisStore(StringRedisTemplate redis,
				org.springframework.core.env.Environment environment) {
			return new CountingRedisStore(redis, environment.getRequiredProperty("it.prefix"));
		}

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

	static class Listeners {

		final Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();

		final Map<String, AtomicInteger> raceApplied = new ConcurrentHashMap<>();

		// Accessors, not fields: the test sees the bean through its @Idempotent proxy.

		public Map<String, AtomicInteger> applied() {
			return this.applied;
		}

		public Map<String, AtomicInteger> raceApplied() {
			return this.raceApplied;
		}

		@RedisStreamListener(stream = "rs-atomic-orders-${it.run}", group = "rs-atomic-orders-${it.run}")
		@Idempotent(key = "#order.orderId")
		public void onOrder(Order order) {
			this.applied.computeIfAbsent(order.orderId(), (id) -> new AtomicInteger()).incrementAndGet();
		}

		@RedisStreamListener(stream = "rs-atomic-race-${it.run}", group = "rs-atomic-race-${it.run}",
				concurrency = "2")
		@Idempotent(key = "#order.orderId()")
		public void onRace(Order order) throws InterruptedException {
			this.raceApplied.computeIfAbsent(order.orderId(), (id) -> new AtomicInteger()).incrementAndGet();
			Thread.sleep(200);
		}

	}

	/** The starter's Redis store, counting the completions the interceptor asks of it directly. */
	static class CountingRedisStore extends RedisIdempotencyStore {

		final AtomicInteger separateCompletions = new AtomicInteger();

		CountingRedisStore(StringRedisTemplate redis, String keyPrefix) {
			super(redis, keyPrefix);
		}

		@Override
		public void complete(IdempotencyKey key, ClaimResult claim, Duration retention) {
			this.separateCompletions.incrementAndGet();
			super.complete(key, claim, retention);
		}

	}

}
