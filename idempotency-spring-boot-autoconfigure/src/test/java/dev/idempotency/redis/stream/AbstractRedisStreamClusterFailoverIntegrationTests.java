package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.testsupport.LocalRedisCluster;
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
import org.springframework.jdbc.core.JdbcTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static dev.idempotency.redis.stream.StreamTestSupport.pending;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster failover under a running stream listener: the primary that serves the stream is
 * killed with {@code SIGKILL} while orders flow into a ledger (H2, no unique index, so an order
 * applied twice shows), a replica takes over, and the listener carries on. Orders whose {@code XADD}
 * the old primary acknowledged but had not replicated are gone from the stream (asynchronous
 * replication); they and the orders applied twice are counted and printed, not hidden. One subclass
 * per store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRedisStreamClusterFailoverIntegrationTests {

	/** Unique per test class: the classes share the JVM, and H2 in-memory databases by name. */
	protected final String run = UUID.randomUUID().toString().substring(0, 8);

	private final String stream = "rs-failover-" + this.run;

	protected static final int ORDERS = 300;

	private LocalRedisCluster cluster;

	private ConfigurableApplicationContext context;

	@BeforeAll
	void start() {
		this.cluster = LocalRedisCluster.start();
		this.context = new SpringApplicationBuilder(FailoverApplication.class).web(WebApplicationType.NONE)
			.properties(this.cluster.properties())
			.properties("it.run=" + this.run,
					"spring.datasource.url=jdbc:h2:mem:rs-failover-" + this.run + ";DB_CLOSE_DELAY=-1",
					// Spring Boot's Lettuce defaults otherwise: no periodic or adaptive topology refresh.
					"spring.data.redis.timeout=2s", "idempotency.redis.stream.batch-size=10",
					"idempotency.redis.stream.poll-timeout=200ms", "idempotency.redis.stream.min-idle=1s",
					"idempotency.redis.stream.claim-interval=200ms", "idempotency.redis.stream.max-deliveries=5",
					"idempotency.redis.stream.recovery-back-off=200ms")
			.properties(storeProperties())
			.run();
		RedisStreamListenerRegistry registry = this.context.getBean(RedisStreamListenerRegistry.class);
		await().atMost(10, TimeUnit.SECONDS)
			.until(() -> registry.getListenerContainers()
				.stream()
				.allMatch((container) -> container.getActiveSubscriptions() == container.getConsumerNames().size()));
	}

	/**
	 * The store's properties.
	 * @return Spring Boot properties
	 */
	protected abstract String[] storeProperties();

	/**
	 * Checks what the store allows to happen twice.
	 * @param twice the orders applied more than once
	 * @param applied the orders applied at least once
	 */
	protected abstract void assertAppliedTwice(List<String> twice, Set<String> applied);

	@AfterAll
	void stop() {
		try {
			if (this.context != null) {
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
	void primaryOfTheStreamKilledUnderARunningListenerLosesOnlyWhatTheStoreAllowsAndTheListenerCarriesOn()
			throws Exception {
		StringRedisTemplate redis = this.context.getBean(StringRedisTemplate.class);
		JdbcTemplate jdbc = this.context.getBean(JdbcTemplate.class);
		Set<String> sent = ConcurrentHashMap.newKeySet();
		CountDownLatch third = new CountDownLatch(ORDERS / 3);
		Thread producer = new Thread(() -> {
			for (int i = 0; i < ORDERS; i++) {
				String orderId = "f-" + i;
				// Every tenth order is sent twice, as a producer retry would.
				for (int copy = 0; copy < ((i % 10 == 0) ? 2 : 1); copy++) {
					addUntilAccepted(redis, orderId);
				}
				sent.add(orderId);
				third.countDown();
				sleep(Duration.ofMillis(10));
			}
		}, "failover-producer");
		producer.start();
		assertThat(third.await(30, TimeUnit.SECONDS)).isTrue();
		int primary = this.cluster.primaryOf(this.stream);
		long killedAt = System.nanoTime();
		this.cluster.kill(primary);
		this.cluster.awaitHealthy(Duration.ofSeconds(30));
		long failoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
		producer.join(TimeUnit.SECONDS.toMillis(120));
		assertThat(producer.isAlive()).isFalse();
		assertThat(this.cluster.primaryOf(this.stream)).isNotEqualTo(primary);
		// Everything the new primary holds is applied and acknowledged: the listener carries on.
		await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200)).until(() -> {
			Set<String> inStream = orderIds(redis.opsForStream().range(this.stream, Range.unbounded()));
			return applied(jdbc).containsAll(inStream) && pending(redis, this.stream, this.stream) == 0;
		});
		List<String> twice = jdbc.queryForList(
				"SELECT order_id FROM rs_failover_ledger GROUP BY order_id HAVING COUNT(*) > 1", String.class);
		Set<String> applied = applied(jdbc);
		assertThat(sent).containsAll(applied);
		Set<String> lost = new HashSet<>(sent);
		lost.removeAll(applied);
		// The measurement the docs report: orders whose XADD was acknowledged and then lost with the
		// primary (asynchronous replication), so never delivered, and orders applied twice.
		System.out.println("Cluster failover (" + getClass().getSimpleName() + "): " + sent.size() + " orders sent, "
				+ applied.size() + " applied, " + lost.size() + " lost with the killed primary, " + twice.size()
				+ " applied twice; failover took " + failoverMillis + " ms; lost: " + lost + "; twice: " + twice);
		assertAppliedTwice(twice, applied);
		assertThat(lost.size()).as("lost orders").isLessThan(ORDERS / 3);
		// After the failover, new orders flow: the last one sent is applied (unless the failover lost it).
		assertThat(applied).contains("f-" + (ORDERS - 1));
	}

	private void addUntilAccepted(StringRedisTemplate redis, String orderId) {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (true) {
			try {
				add(redis, this.stream, order(orderId, 1));
				return;
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				sleep(Duration.ofMillis(100));
			}
		}
	}

	private static Set<String> applied(JdbcTemplate jdbc) {
		return new HashSet<>(jdbc.queryForList("SELECT order_id FROM rs_failover_ledger", String.class));
	}

	private static Set<String> orderIds(List<MapRecord<String, Object, Object>> records) {
		Set<String> ids = new HashSet<>();
		for (MapRecord<String, Object, Object> record : records) {
			String payload = (String) record.getValue().get("payload");
			int start = payload.indexOf("\"orderId\":\"") + "\"orderId\":\"".length();
			ids.add(payload.substring(start, payload.indexOf('"', start)));
		}
		return ids;
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class FailoverApplication {

		@Bean
		Listeners listeners(JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE rs_failover_ledger (order_id VARCHAR(64) NOT NULL, points INT NOT NULL)");
			return new Listeners(jdbc);
		}

	}

	static class Listeners {

		private final JdbcTemplate jdbc;

		Listeners(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@RedisStreamListener(stream = "rs-failover-${it.run}", group = "rs-failover-${it.run}", concurrency = "2")
		@Idempotent(key = "#order.orderId")
		public void onOrder(Order order) {
			this.jdbc.update("INSERT INTO rs_failover_ledger (order_id, points) VALUES (?, ?)", order.orderId(),
					order.points());
		}

	}

}
