package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.PendingMessage;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static dev.idempotency.redis.stream.StreamTestSupport.pending;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Entries a consumer holds in flight (the one its listener is slow on, and those read with it that
 * wait behind it) are not claimed by another consumer, however long the listener takes, and a
 * stopped consumer's entries are still claimed after min-idle. Two listeners of one group stand for
 * two instances (each its own container and recovery task, one namespace); one read of
 * {@code batch-size} 3 takes the three entries added before they start, and the listener holds the
 * first until the test releases it. min-idle 1 s (refreshed every 250 ms), claims every 100 ms. The real Redis at
 * 127.0.0.1:6379 and the real PostgreSQL, the JDBC store.
 */
class RedisStreamInFlightIntegrationTests {

	private final String run = UUID.randomUUID().toString().substring(0, 8);

	private final String stream = "rs-in-flight-" + this.run;

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate redis;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	private Listener listener;

	@BeforeEach
	void connect() {
		this.connectionFactory = TestRedisConnections.connectionFactory();
		this.redis = new StringRedisTemplate(this.connectionFactory);
	}

	@AfterEach
	void stop() {
		if (this.listener != null) {
			this.listener.release();
		}
		if (this.context != null) {
			this.context.getBean(RedisStreamListenerRegistry.class).stop();
			this.context.close();
		}
		this.redis.delete(List.of(this.stream, this.stream + ".dlq"));
		this.connectionFactory.destroy();
	}

	@Test
	void entriesHeldByASlowListenerAreNotClaimedNorDeadLetteredByAnotherConsumer() {
		addThreeOrders();
		start(1);
		assertThat(this.listener.awaitGate()).as("the slow order reached the listener").isTrue();

		// Three times min-idle: without the refresh, the other listener's recovery claims all three
		// (delivery 2 of max-deliveries 1) and dead-letters them, the slow one while it runs.
		await().during(Duration.ofSeconds(3))
			.atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> !this.redis.hasKey(this.stream + ".dlq") && heldOnceByOneConsumer(pendingMessages()));
		this.listener.release();

		await().atMost(10, TimeUnit.SECONDS)
			.until(() -> ledger() == 3 && pending(this.redis, this.stream, group()) == 0);
		assertThat(this.listener.attempts()).as("attempts per order")
			.isEqualTo(Map.of(orderId("slow"), 1, orderId("2"), 1, orderId("3"), 1));
		assertThat(this.redis.hasKey(this.stream + ".dlq")).as("dead-letter stream").isFalse();
	}

	@Test
	void entriesOfAStoppedConsumerAreStillClaimedAfterMinIdle() throws Exception {
		addThreeOrders();
		start(2);
		assertThat(this.listener.awaitGate()).as("the slow order reached the listener").isTrue();
		String holder = this.listener.threads().get(orderId("slow")).startsWith("redis-stream-holder-a-") ? "holder-a"
				: "holder-b";
		String other = holder.equals("holder-a") ? "holder-b" : "holder-a";
		RedisStreamListenerContainer holding = this.context.getBean(RedisStreamListenerRegistry.class)
			.getListenerContainer(holder);

		// Stopped while its listener is on the slow order: that one finishes and is acknowledged, the two
		// behind it stay pending in the stopped consumer, no longer kept fresh.
		CompletableFuture<Void> stopped = CompletableFuture.runAsync(holding::stop);
		await().atMost(5, TimeUnit.SECONDS).until(() -> !holding.isRunning());
		this.listener.release();
		stopped.get(20, TimeUnit.SECONDS);

		await().atMost(10, TimeUnit.SECONDS)
			.until(() -> ledger() == 3 && pending(this.redis, this.stream, group()) == 0);
		assertThat(this.listener.attempts()).as("attempts per order")
			.isEqualTo(Map.of(orderId("slow"), 1, orderId("2"), 1, orderId("3"), 1));
		assertThat(this.listener.threads().get(orderId("2"))).startsWith("redis-stream-recovery-" + other);
		assertThat(this.listener.threads().get(orderId("3"))).startsWith("redis-stream-recovery-" + other);
		assertThat(this.redis.hasKey(this.stream + ".dlq")).as("dead-letter stream").isFalse();
	}

	/** Adds the slow order and two more before the listeners start: the first read takes all three. */
	private void addThreeOrders() {
		add(this.redis, this.stream, order(orderId("slow"), 1));
		add(this.redis, this.stream, order(orderId("2"), 1));
		add(this.redis, this.stream, order(orderId("3"), 1));
	}

	/** The three entries, pending in the consumer that read them, each delivered once. */
	private static boolean heldOnceByOneConsumer(List<PendingMessage> pending) {
		return pending.size() == 3 && pending.stream()
			.allMatch((message) -> message.getTotalDeliveryCount() == 1
					&& message.getConsumerName().equals(pending.get(0).getConsumerName()));
	}

	private void start(int maxDeliveries) {
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of(TestRedisConnections.properties()));
		properties.addAll(List.of("it.run=" + this.run, "spring.data.redis.timeout=5s",
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.redis.stream.batch-size=3", "idempotency.redis.stream.poll-timeout=200ms",
				"idempotency.redis.stream.min-idle=1s", "idempotency.redis.stream.claim-interval=100ms",
				"idempotency.redis.stream.max-deliveries=" + maxDeliveries));
		this.context = new SpringApplicationBuilder(InFlightApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.listener = this.context.getBean(Listener.class);
	}

	private String orderId(String name) {
		return this.run + "-" + name;
	}

	private String group() {
		return this.stream;
	}

	private int ledger() {
		Integer count = this.jdbc.queryForObject(
				"SELECT COUNT(*) FROM redis_stream_in_flight_ledger WHERE order_id LIKE ?", Integer.class,
				this.run + "-%");
		return (count != null) ? count : 0;
	}

	private List<PendingMessage> pendingMessages() {
		return this.redis.opsForStream().pending(this.stream, group(), Range.unbounded(), 100).toList();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class InFlightApplication {

		@Bean
		Listener listener(JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS redis_stream_in_flight_ledger (order_id VARCHAR(64) NOT NULL)");
			return new Listener(jdbc);
		}

	}

	static class Listener {

		private final JdbcTemplate jdbc;

		private final Map<String, Integer> attempts = new ConcurrentHashMap<>();

		private final Map<String, String> threads = new ConcurrentHashMap<>();

		private final CountDownLatch gate = new CountDownLatch(1);

		private final CountDownLatch inGate = new CountDownLatch(1);

		Listener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		// Accessors, not fields: the test sees the bean through its @Idempotent proxy.

		public Map<String, Integer> attempts() {
			return this.attempts;
		}

		public Map<String, String> threads() {
			return this.threads;
		}

		public void release() {
			this.gate.countDown();
		}

		public boolean awaitGate() {
			try {
				return this.inGate.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

		@RedisStreamListener(id = "holder-a", stream = "rs-in-flight-${it.run}", group = "rs-in-flight-${it.run}")
		@Idempotent(key = "#order.orderId()", namespace = "rs-in-flight-${it.run}")
		public void onOrderA(Order order) throws InterruptedException {
			apply(order);
		}

		@RedisStreamListener(id = "holder-b", stream = "rs-in-flight-${it.run}", group = "rs-in-flight-${it.run}")
		@Idempotent(key = "#order.orderId()", namespace = "rs-in-flight-${it.run}")
		public void onOrderB(Order order) throws InterruptedException {
			apply(order);
		}

		private void apply(Order order) throws InterruptedException {
			String orderId = order.orderId();
			this.attempts.merge(orderId, 1, Integer::sum);
			this.threads.put(orderId, Thread.currentThread().getName());
			if (orderId.endsWith("-slow")) {
				this.inGate.countDown();
				this.gate.await(30, TimeUnit.SECONDS);
			}
			this.jdbc.update("INSERT INTO redis_stream_in_flight_ledger (order_id) VALUES (?)", orderId);
		}

	}

}
