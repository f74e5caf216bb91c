package dev.idempotency.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.filter.FilterRebuilds;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.redis.filter.RedisRecentKeysFilter;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestRedisConnections;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.TransactionDefinition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The duplicate filter chain (local Bloom filter, then Redis recent keys, then the JDBC store) on the
 * real PostgreSQL and Redis: a duplicate Redis remembers is acknowledged without a transaction, a
 * duplicate whose filter write was lost (a crash between commit and that write) is still skipped by
 * the store, Bloom false positives are confirmed by the store and processed once, and a restarted
 * application rebuilds its Bloom filter from the table.
 */
class DuplicateFilterIntegrationTests {

	private static final String PREFIX = TestRedisConnections.uniqueKeyPrefix(DuplicateFilterIntegrationTests.class);

	private static final String NAMESPACE = "it-filter-" + System.nanoTime();

	private static LettuceConnectionFactory redis;

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	@BeforeAll
	static void connect() {
		redis = TestRedisConnections.connectionFactory();
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
	void close() {
		DeliveryContextHolder.clear();
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void aRememberedDuplicateIsAcknowledgedWithoutATransaction() {
		ConfigurableApplicationContext context = start("bloom,redis-recent", 100_000, 0.01, "suffix-a");
		Orders orders = context.getBean(Orders.class);
		CountingTransactionManager transactions = context.getBean(CountingTransactionManager.class);
		AtomicInteger acknowledged = new AtomicInteger();
		for (int i = 0; i < 200; i++) {
			deliver("a-" + i, acknowledged).apply(orders, "a-" + i);
		}
		awaitRecentKeysWritten(context);
		int begunAfterFirstRound = transactions.begun.get();
		for (int i = 0; i < 200; i++) {
			deliver("a-" + i, acknowledged).apply(orders, "a-" + i);
		}
		assertThat(orders.applied()).hasSize(200);
		assertThat(acknowledged).hasValue(400);
		assertThat(transactions.begun.get()).as("transactions opened by the replayed round")
			.isEqualTo(begunAfterFirstRound);
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		assertThat(answers(meters, "redis-recent", "completed")).isEqualTo(200);
		assertThat(answers(meters, "bloom", "maybe")).isEqualTo(200);
		assertThat(meters.get(IdempotencyMeters.INVOCATIONS).tag(IdempotencyMeters.OUTCOME_TAG, "duplicate").timer().count())
			.isEqualTo(200);
	}

	@Test
	void aDuplicateWhoseFilterWriteWasLostIsStillSkippedByTheStore() {
		ConfigurableApplicationContext context = start("bloom,redis-recent", 100_000, 0.01, "suffix-b");
		Orders orders = context.getBean(Orders.class);
		AtomicInteger acknowledged = new AtomicInteger();
		for (int i = 0; i < 50; i++) {
			deliver("b-" + i, acknowledged).apply(orders, "b-" + i);
		}
		awaitRecentKeysWritten(context);
		// No write still in flight when the keys are deleted: one landing after would answer "completed".
		StringRedisTemplate keys = new StringRedisTemplate(redis);
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> keys.keys(PREFIX + "suffix-b*").size() >= 50);
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		// The first round asks Redis only for Bloom false positives.
		double unknownBefore = answers(meters, "redis-recent", "unknown");
		// As if the instance died between the commit and the Redis write.
		TestRedisConnections.deleteKeys(redis, PREFIX + "suffix-b");
		for (int i = 0; i < 50; i++) {
			deliver("b-" + i, acknowledged).apply(orders, "b-" + i);
		}
		assertThat(orders.applied()).hasSize(50);
		assertThat(acknowledged).hasValue(100);
		assertThat(answers(meters, "redis-recent", "unknown") - unknownBefore).isEqualTo(50);
		assertThat(meters.get(IdempotencyMeters.INVOCATIONS).tag(IdempotencyMeters.OUTCOME_TAG, "duplicate").timer().count())
			.isEqualTo(50);
	}

	@Test
	void bloomFalsePositivesAreConfirmedByTheStoreAndProcessedOnce() {
		// A tiny filter at a high rate: many new keys look "maybe seen".
		ConfigurableApplicationContext context = start("bloom", 20, 0.3, "suffix-c");
		Orders orders = context.getBean(Orders.class);
		AtomicInteger acknowledged = new AtomicInteger();
		for (int i = 0; i < 300; i++) {
			deliver("c-" + i, acknowledged).apply(orders, "c-" + i);
		}
		assertThat(orders.applied()).hasSize(300).doesNotHaveDuplicates();
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		double falsePositives = meters.get(IdempotencyMeters.FILTER_FALSE_POSITIVES)
			.tag(IdempotencyMeters.FILTER_TAG, "bloom")
			.counter()
			.count();
		assertThat(falsePositives).isPositive().isEqualTo(answers(meters, "bloom", "maybe"));
	}

	@Test
	void aRestartedApplicationRebuildsItsBloomFilterFromTheTable() {
		ConfigurableApplicationContext first = start("bloom", 100_000, 0.001, "suffix-d");
		AtomicInteger acknowledged = new AtomicInteger();
		for (int i = 0; i < 100; i++) {
			deliver("d-" + i, acknowledged).apply(first.getBean(Orders.class), "d-" + i);
		}
		first.close();
		ConfigurableApplicationContext second = start("bloom", 100_000, 0.001, "suffix-d");
		MeterRegistry meters = second.getBean(MeterRegistry.class);
		Awaitility.await()
			.until(() -> meters.find(IdempotencyMeters.FILTER_REBUILD_KEYS).gauge() != null
					&& meters.find(IdempotencyMeters.FILTER_REBUILD_KEYS).gauge().value() >= 100);
		assertThat(second.getBean(FilterRebuilds.class).rebuilds()).hasSize(1);
		Orders orders = second.getBean(Orders.class);
		for (int i = 0; i < 100; i++) {
			deliver("d-" + i, acknowledged).apply(orders, "d-" + i);
		}
		deliver("d-new", acknowledged).apply(orders, "d-new");
		assertThat(orders.applied()).containsExactly("d-new");
		assertThat(answers(meters, "bloom", "maybe")).isEqualTo(100);
		assertThat(answers(meters, "bloom", "absent")).isEqualTo(1);
	}

	private ConfigurableApplicationContext start(String layers, long expectedInsertions, double rate,
			String prefixSuffix) {
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of(TestRedisConnections.properties()));
		properties.addAll(List.of("idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.store.type=jdbc", "idempotency.filter.enabled=true", "idempotency.filter.layers=" + layers,
				"idempotency.filter.namespaces=" + NAMESPACE + "-" + prefixSuffix,
				"idempotency.filter.bloom.expected-insertions=" + expectedInsertions,
				"idempotency.filter.bloom.false-positive-rate=" + rate,
				"idempotency.filter.recent.key-prefix=" + PREFIX + prefixSuffix + ":", "it.namespace=" + NAMESPACE + "-"
						+ prefixSuffix));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class)
			.web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.contexts.add(context);
		return context;
	}

	private static double answers(MeterRegistry meters, String filter, String answer) {
		var counter = meters.find(IdempotencyMeters.FILTER_ANSWERS)
			.tag(IdempotencyMeters.FILTER_TAG, filter)
			.tag(IdempotencyMeters.ANSWER_TAG, answer)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static Delivery deliver(String messageId, AtomicInteger acknowledged) {
		DeliveryContextHolder.set(new DeliveryContext(messageId, null, Map.of(), acknowledged::incrementAndGet,
				List.of()));
		return (orders, orderId) -> {
			try {
				orders.apply(orderId);
			}
			finally {
				DeliveryContextHolder.clear();
			}
		};
	}

	@FunctionalInterface
	interface Delivery {

		void apply(Orders orders, String orderId);

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class TestApplication {

		@Bean
		Orders orders() {
			return new Orders();
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		CountingTransactionManager transactionManager(DataSource dataSource) {
			return new CountingTransactionManager(dataSource);
		}

	}

	static class Orders {

		private final List<String> applied = new java.util.concurrent.CopyOnWriteArrayList<>();

		public List<String> applied() {
			return this.applied;
		}

		@Idempotent(key = "#p0", namespace = "${it.namespace}")
		public void apply(String orderId) {
			this.applied.add(orderId);
		}

	}

	/** Counts the transactions it began: a filtered duplicate must open none. */
	static class CountingTransactionManager extends JdbcTransactionManager {

		final AtomicInteger begun = new AtomicInteger();

		CountingTransactionManager(DataSource dataSource) {
			super(dataSource);
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.begun.incrementAndGet();
			super.doBegin(transaction, definition);
		}

	}

	/** The recent keys are written behind the consumer thread: wait until the queue is empty. */
	private static void awaitRecentKeysWritten(ConfigurableApplicationContext context) {
		RedisRecentKeysFilter recent = context.getBean(RedisRecentKeysFilter.class);
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> recent.pendingWrites() == 0);
		assertThat(recent.dropped()).isZero();
	}

}
