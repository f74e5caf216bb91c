package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.redis.stream.metrics.RedisStreamMeters;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.testsupport.LocalRedisCluster;
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
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.awaitEverySubscriptionActive;
import static dev.idempotency.redis.stream.StreamTestSupport.entries;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static dev.idempotency.redis.stream.StreamTestSupport.pending;
import static dev.idempotency.redis.stream.StreamTestSupport.sleep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stream listeners with the Redis store on a local 3-primary, 3-replica Redis Cluster, through
 * Spring Boot's Lettuce cluster client: group creation, reading, XAUTOCLAIM recovery of another
 * consumer's pending entry, the dead-letter stream (in another slot than its source), and the
 * redis-atomic completion. Its script touches the store's entry and the stream: where they hash to
 * different slots it must not be sent (the cluster refuses it with {@code CROSSSLOT}, after the
 * work ran), and the key is completed, then the entry acknowledged; where a hash tag co-locates them
 * it runs as one step.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisStreamClusterIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final String ORDERS = "rs-cluster-orders-" + RUN;

	private static final String TAGGED = "{rs-cluster-" + RUN + "}.tagged";

	private static final String POISON = "rs-cluster-poison-" + RUN;

	private static final String RECOVER = "rs-cluster-recover-" + RUN;

	private static final String PREFIX = "rs-cluster-idem-" + RUN + ":";

	private static final String TAGGED_PREFIX = "{rs-cluster-" + RUN + "}:idem:";

	private static final Duration LEASE = Duration.ofSeconds(2);

	private LocalRedisCluster cluster;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate redis;

	private MeterRegistry meters;

	private Listeners listeners;

	@BeforeAll
	void start() {
		this.cluster = LocalRedisCluster.start();
		seedEntryPendingInADeadConsumer();
		this.context = new SpringApplicationBuilder(ClusterApplication.class).web(WebApplicationType.NONE)
			.properties(this.cluster.properties())
			.properties("it.run=" + RUN, "it.prefix=" + PREFIX, "it.tagged-prefix=" + TAGGED_PREFIX,
					"spring.data.redis.timeout=5s",
					"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
					"idempotency.retention=1h", "idempotency.lease=" + LEASE.toMillis() + "ms",
					"idempotency.redis.stream.batch-size=5", "idempotency.redis.stream.poll-timeout=200ms",
					"idempotency.redis.stream.min-idle=400ms", "idempotency.redis.stream.claim-interval=100ms",
					"idempotency.redis.stream.max-deliveries=2")
			.run();
		this.redis = this.context.getBean(StringRedisTemplate.class);
		this.meters = this.context.getBean(MeterRegistry.class);
		this.listeners = this.context.getBean(Listeners.class);
		awaitEverySubscriptionActive(this.context, Duration.ofSeconds(10));
	}

	@AfterAll
	void stop() {
		try {
			if (this.context != null) {
				this.context.getBean(RedisStreamListenerRegistry.class).stop();
				this.context.close();
			}
		}
		finally {
			if (this.cluster != null) {
				this.cluster.close();
			}
		}
	}

	@Test
	void streamsAndTheirKeysSpreadOverSeveralPrimaries() {
		assertThat(List.of(ORDERS, POISON, RECOVER, POISON + ".dlq").stream().map(this.cluster::primaryOf).distinct())
			.hasSizeGreaterThan(1);
		assertThat(slot(POISON + ".dlq")).isNotEqualTo(slot(POISON));
	}

	@Test
	void redisAtomicOrdersInAnotherSlotThanTheStreamAreAppliedOnceAndNotRepeatedAfterTheLease() {
		for (int i = 0; i < 20; i++) {
			add(this.redis, ORDERS, order("o-" + i, 10));
			add(this.redis, ORDERS, order("o-" + i, 10));
		}
		CountingRedisStore store = this.context.getBean("countingRedisStore", CountingRedisStore.class);
		long slotsApart = IntStream.range(0, 20)
			.filter((i) -> slot(store.storageKey(orderKey(ORDERS, "o-" + i))) != slot(ORDERS))
			.count();
		assertThat(slotsApart).isGreaterThan(15);
		await().atMost(30, TimeUnit.SECONDS)
			.until(() -> StreamTestSupport.invocations(this.meters, ORDERS, "duplicate") >= 20
					&& pending(this.redis, ORDERS, ORDERS) == 0);
		// Longer than the lease and min-idle: a claim left in progress would have been run again by now.
		sleep(LEASE.plusSeconds(1));
		assertThat(this.listeners.applied(ORDERS)).hasSize(20)
			.allSatisfy((orderId, count) -> assertThat(count).hasValue(1));
		assertThat(StreamTestSupport.invocations(this.meters, ORDERS, "processed")).isEqualTo(20);
		assertThat(pending(this.redis, ORDERS, ORDERS)).isZero();
		assertThat(this.redis.hasKey(ORDERS + ".dlq")).isFalse();
		for (int i = 0; i < 20; i++) {
			assertThat(this.redis.opsForValue().get(store.storageKey(orderKey(ORDERS, "o-" + i))))
				.isEqualTo("COMPLETED");
		}
		// Keys in another slot than the stream were completed by the store, then acknowledged.
		assertThat(store.separateCompletions).hasValueGreaterThanOrEqualTo((int) slotsApart);
	}

	@Test
	void redisAtomicKeysCoLocatedWithTheStreamByAHashTagAreCompletedAndAcknowledgedInOneScript() {
		for (int i = 0; i < 10; i++) {
			add(this.redis, TAGGED, order("t-" + i, 1));
			add(this.redis, TAGGED, order("t-" + i, 1));
		}
		await().atMost(30, TimeUnit.SECONDS)
			.until(() -> StreamTestSupport.invocations(this.meters, TAGGED, "duplicate") >= 10
					&& pending(this.redis, TAGGED, TAGGED) == 0);
		assertThat(this.listeners.applied(TAGGED)).hasSize(10)
			.allSatisfy((orderId, count) -> assertThat(count).hasValue(1));
		CountingRedisStore tagged = this.context.getBean("taggedStore", CountingRedisStore.class);
		for (int i = 0; i < 10; i++) {
			String entry = tagged.storageKey(orderKey(TAGGED, "t-" + i));
			assertThat(slot(entry)).isEqualTo(slot(TAGGED));
			assertThat(this.redis.opsForValue().get(entry)).isEqualTo("COMPLETED");
		}
		assertThat(tagged.separateCompletions).hasValue(0);
	}

	@Test
	void failingEntryIsDeadLetteredToAStreamInAnotherSlot() {
		add(this.redis, POISON, order("poison-1", 1));
		add(this.redis, POISON, order("fine-1", 1));
		await().atMost(30, TimeUnit.SECONDS)
			.until(() -> Boolean.TRUE.equals(this.redis.hasKey(POISON + ".dlq"))
					&& pending(this.redis, POISON, POISON) == 0);
		List<MapRecord<String, Object, Object>> dead = entries(this.redis, POISON + ".dlq");
		assertThat(dead).singleElement().satisfies((record) -> {
			assertThat(record.getValue()).containsEntry(RedisStreamListenerContainer.DLQ_SOURCE_FIELD, POISON)
				.containsEntry(RedisStreamListenerContainer.DLQ_DELIVERY_COUNT_FIELD, "2");
			assertThat((String) record.getValue().get(RedisStreamListenerContainer.DLQ_ERROR_FIELD))
				.contains("poisoned order");
		});
		assertThat(this.listeners.applied(POISON)).containsOnlyKeys("poison-1", "fine-1");
		assertThat(this.listeners.applied(POISON).get("fine-1")).hasValue(1);
		assertThat(this.listeners.applied(POISON).get("poison-1")).hasValue(2);
	}

	@Test
	void entryPendingInAConsumerThatDiedIsClaimedAndAppliedOnce() {
		// Read before the application started by a consumer of another instance that then died.
		await().atMost(20, TimeUnit.SECONDS)
			.until(() -> this.listeners.applied(RECOVER).containsKey("recovered-1")
					&& pending(this.redis, RECOVER, RECOVER) == 0);
		assertThat(this.listeners.applied(RECOVER).get("recovered-1")).hasValue(1);
		assertThat(StreamTestSupport.counter(this.meters, RedisStreamMeters.STREAM_RECLAIMED, RECOVER))
			.isGreaterThanOrEqualTo(1);
	}

	@Test
	void scriptRefusedWithCrossSlotByAServerThatLooksStandaloneIsDeclinedAndNothingChanges() throws Exception {
		// A plain client on one primary, with a stream and a store entry that this primary serves but
		// in two slots: the server refuses the two-key script, as a proxied cluster does.
		int primary = this.cluster.primaries().get(0);
		String stream = nameOn(primary, "rs-cluster-plain-" + RUN + "-");
		String prefix = "rs-cluster-plain-idem-" + RUN + ":";
		LettuceConnectionFactory plain = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", primary));
		plain.afterPropertiesSet();
		plain.start();
		try {
			StringRedisTemplate direct = new StringRedisTemplate(plain);
			RedisIdempotencyStore store = new RedisIdempotencyStore(direct, prefix);
			IdempotencyKey key = null;
			for (int i = 0; key == null; i++) {
				IdempotencyKey candidate = new IdempotencyKey("plain", "k-" + i);
				String entry = store.storageKey(candidate);
				if (this.cluster.primaryOf(entry) == primary
						&& slot(entry) != slot(stream)) {
					key = candidate;
				}
			}
			String id = add(direct, stream, order("plain-1", 1));
			direct.opsForStream().createGroup(stream, ReadOffset.from("0"), "plain");
			direct.opsForStream()
				.read(Consumer.from("plain", "c1"), StreamOffset.create(stream, ReadOffset.lastConsumed()));
			ClaimResult claim = store.claim(key, LEASE, Duration.ofHours(1));
			RedisStreamAcknowledger acknowledger = new RedisStreamAcknowledger(direct, stream, "plain", id);
			assertThat(acknowledger.completeAndAcknowledge(store, key, claim, Duration.ofHours(1))).isFalse();
			assertThat(acknowledger.isAcknowledged()).isFalse();
			assertThat(direct.opsForValue().get(store.storageKey(key))).isEqualTo(store.claimedValue(claim));
			assertThat(pending(direct, stream, "plain")).isEqualTo(1);
			// What the interceptor then does: complete, then acknowledge.
			store.complete(key, claim, Duration.ofHours(1));
			acknowledger.acknowledge();
			assertThat(pending(direct, stream, "plain")).isZero();
			direct.delete(stream);
			direct.delete(store.storageKey(key));
		}
		finally {
			plain.destroy();
		}
	}

	private void seedEntryPendingInADeadConsumer() {
		LettuceConnectionFactory seed = new LettuceConnectionFactory(
				new RedisClusterConfiguration(List.of(this.cluster.nodes().split(","))));
		seed.afterPropertiesSet();
		seed.start();
		try {
			StringRedisTemplate redis = new StringRedisTemplate(seed);
			add(redis, RECOVER, order("recovered-1", 5));
			redis.opsForStream().createGroup(RECOVER, ReadOffset.from("0"), RECOVER);
			assertThat(redis.opsForStream()
				.read(Consumer.from(RECOVER, "dead-consumer"), StreamOffset.create(RECOVER, ReadOffset.lastConsumed())))
				.hasSize(1);
		}
		finally {
			seed.destroy();
		}
	}

	private String nameOn(int primary, String base) {
		for (int i = 0;; i++) {
			if (this.cluster.primaryOf(base + i) == primary) {
				return base + i;
			}
		}
	}

	private static int slot(String key) {
		return ClusterSlotHashUtil.calculateSlot(key);
	}

	/** The key of an order as the listeners' default namespace names it (group, then method). */
	private static IdempotencyKey orderKey(String group, String orderId) {
		String method = group.equals(TAGGED) ? "onTagged" : "onOrder";
		return new IdempotencyKey(group + ":Listeners#" + method, orderId);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ClusterApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		@Primary
		CountingRedisStore countingRedisStore(StringRedisTemplate redis, Environment environment) {
			return new CountingRedisStore(redis, environment.getRequiredProperty("it.prefix"));
		}

		@Bean
		CountingRedisStore taggedStore(StringRedisTemplate redis, Environment environment) {
			return new CountingRedisStore(redis, environment.getRequiredProperty("it.tagged-prefix"));
		}

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

	static class Listeners {

		final Map<String, Map<String, AtomicInteger>> applied = new ConcurrentHashMap<>();

		// An accessor, not a field: the test sees the bean through its @Idempotent proxy.
		public Map<String, AtomicInteger> applied(String stream) {
			return this.applied.computeIfAbsent(stream, (name) -> new ConcurrentHashMap<>());
		}

		@RedisStreamListener(stream = "rs-cluster-orders-${it.run}", group = "rs-cluster-orders-${it.run}",
				concurrency = "2")
		@Idempotent(key = "#order.orderId")
		public void onOrder(Order order) {
			count(ORDERS, order);
		}

		@RedisStreamListener(stream = "{rs-cluster-${it.run}}.tagged", group = "{rs-cluster-${it.run}}.tagged")
		@Idempotent(key = "#order.orderId", store = "taggedStore")
		public void onTagged(Order order) {
			count(TAGGED, order);
		}

		@RedisStreamListener(stream = "rs-cluster-poison-${it.run}", group = "rs-cluster-poison-${it.run}")
		@Idempotent(key = "#order.orderId")
		public void onPoison(Order order) {
			count(POISON, order);
			if (order.orderId().startsWith("poison")) {
				throw new IllegalStateException("poisoned order " + order.orderId());
			}
		}

		@RedisStreamListener(stream = "rs-cluster-recover-${it.run}", group = "rs-cluster-recover-${it.run}")
		@Idempotent(key = "#order.orderId")
		public void onRecover(Order order) {
			count(RECOVER, order);
		}

		private void count(String stream, Order order) {
			applied(stream).computeIfAbsent(order.orderId(), (id) -> new AtomicInteger()).incrementAndGet();
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
