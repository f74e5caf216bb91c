package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.IdempotencyKeyConflictException;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
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
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.awaitEverySubscriptionActive;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @RedisStreamListener} with {@code @Idempotent(fingerprint = "#msg")} end to end on the
 * real Redis at 127.0.0.1:6379: a second entry that reuses a key with another payload is a
 * conflict, dead-lettered to {@code <stream>.dlq} at its first delivery without running the method,
 * while the first entry's effect stays once and an exact repeat is still a plain duplicate. One
 * subclass per store; stream, group, namespace and key prefix are unique per run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRedisStreamConflictIntegrationTests {

	protected static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final String ORDERS = "rs-conflict-orders-" + RUN;

	private static final String NAMESPACE = "rs-conflict-" + RUN;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate redis;

	private MeterRegistry meters;

	private Listener listener;

	/** The store's properties (and its database's, if any). */
	protected abstract List<String> storeProperties();

	/** The store's name, {@code IdempotencyStore#name()}: the store under test is the one configured. */
	protected abstract String storeName();

	/** Deletes what the store wrote, after the run. */
	protected void deleteStoreKeys(StringRedisTemplate redis) {
	}

	@BeforeAll
	void start() {
		List<String> properties = new ArrayList<>(storeProperties());
		properties.addAll(List.of("it.run=" + RUN, "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=6379",
				"spring.data.redis.timeout=5s", "idempotency.retention=1h", "idempotency.lease=10s",
				"idempotency.redis.stream.batch-size=1", "idempotency.redis.stream.poll-timeout=200ms",
				"idempotency.redis.stream.min-idle=400ms", "idempotency.redis.stream.claim-interval=100ms",
				// Retries are possible: a conflict must not use them.
				"idempotency.redis.stream.max-deliveries=3", "idempotency.redis.stream.recovery-back-off=100ms"));
		this.context = new SpringApplicationBuilder(ConflictApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.redis = this.context.getBean(StringRedisTemplate.class);
		this.meters = this.context.getBean(MeterRegistry.class);
		this.listener = this.context.getBean(Listener.class);
		assertThat(this.context.getBean(IdempotencyStore.class).name()).isEqualTo(storeName());
		awaitEverySubscriptionActive(this.context, Duration.ofSeconds(10));
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			// Stop reading first: deleting a stream under a running listener would recreate its group.
			this.context.getBean(RedisStreamListenerRegistry.class).stop();
			this.redis.delete(List.of(ORDERS, ORDERS + ".dlq"));
			deleteStoreKeys(this.redis);
			this.context.close();
		}
	}

	@Test
	void entryReusingAKeyWithAnotherPayloadIsDeadLetteredAtOnceAndTheFirstEffectStaysOnce() {
		add(this.redis, ORDERS, order("order-1", 10));
		await().atMost(10, TimeUnit.SECONDS).until(() -> invocations("processed") == 1);
		assertThat(this.listener.effects()).containsExactly(Map.entry("order-1", 10));

		String conflictingId = add(this.redis, ORDERS, order("order-1", 99));
		await().atMost(10, TimeUnit.SECONDS).until(() -> deadLetter(conflictingId) != null);
		Map<Object, Object> deadLetter = deadLetter(conflictingId).getValue();
		assertThat(deadLetter).containsEntry("payload", order("order-1", 99))
			.containsEntry(RedisStreamListenerContainer.DLQ_SOURCE_FIELD, ORDERS)
			.containsEntry(RedisStreamListenerContainer.DLQ_DELIVERY_COUNT_FIELD, "1");
		assertThat((String) deadLetter.get(RedisStreamListenerContainer.DLQ_ERROR_FIELD))
			.contains(IdempotencyKeyConflictException.class.getSimpleName());
		assertThat(invocations("conflict")).isEqualTo(1);
		assertThat(this.listener.calls()).as("the method ran for the first entry only").isEqualTo(1);
		assertThat(this.listener.effects()).containsExactly(Map.entry("order-1", 10));
		await().atMost(5, TimeUnit.SECONDS).until(() -> !pendingIds().contains(conflictingId));

		// The same payload again is still a duplicate: acknowledged and skipped, not dead-lettered.
		String repeatId = add(this.redis, ORDERS, order("order-1", 10));
		await().atMost(10, TimeUnit.SECONDS).until(() -> invocations("duplicate") == 1);
		await().atMost(5, TimeUnit.SECONDS).until(() -> !pendingIds().contains(repeatId));
		assertThat(deadLetter(repeatId)).isNull();
		assertThat(this.listener.calls()).isEqualTo(1);
		assertThat(this.listener.effects()).containsExactly(Map.entry("order-1", 10));
		assertThat(invocations("conflict")).isEqualTo(1);
		assertThat(invocations("failed")).isZero();
	}

	private long invocations(String outcome) {
		return StreamTestSupport.invocations(this.meters, NAMESPACE, outcome);
	}

	private MapRecord<String, Object, Object> deadLetter(String id) {
		return StreamTestSupport.entries(this.redis, ORDERS + ".dlq")
			.stream()
			.filter((entry) -> id.equals(entry.getValue().get(RedisStreamListenerContainer.DLQ_ID_FIELD)))
			.findFirst()
			.orElse(null);
	}

	private Set<String> pendingIds() {
		Set<String> ids = ConcurrentHashMap.newKeySet();
		this.redis.opsForStream()
			.pending(ORDERS, ORDERS, Range.unbounded(), 1000)
			.forEach((message) -> ids.add(message.getIdAsString()));
		return ids;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ConflictApplication {

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

		private final Map<String, Integer> effects = new ConcurrentHashMap<>();

		private final Map<String, Integer> calls = new ConcurrentHashMap<>();

		// Accessors, not fields: the test sees the bean through its @Idempotent proxy.

		public Map<String, Integer> effects() {
			return this.effects;
		}

		public int calls() {
			return this.calls.values().stream().mapToInt(Integer::intValue).sum();
		}

		@RedisStreamListener(id = "conflict", stream = "rs-conflict-orders-${it.run}",
				group = "rs-conflict-orders-${it.run}")
		@Idempotent(key = "#msg.orderId()", namespace = "rs-conflict-${it.run}", fingerprint = "#msg")
		public void onOrder(Order msg) {
			this.calls.merge(msg.orderId(), 1, Integer::sum);
			this.effects.merge(msg.orderId(), msg.points(), Integer::sum);
		}

	}

}
