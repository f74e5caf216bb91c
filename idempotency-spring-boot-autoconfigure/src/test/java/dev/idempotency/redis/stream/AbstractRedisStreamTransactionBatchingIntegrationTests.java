package dev.idempotency.redis.stream;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TransactionsSeen;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.beans.factory.annotation.Value;
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
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.invocations;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static dev.idempotency.redis.stream.StreamTestSupport.pending;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Transaction batching of record-style {@code @Idempotent} stream listeners
 * ({@code idempotency.redis.stream.transaction-batching.enabled}), on the real Redis at
 * 127.0.0.1:6379 and a real database reached through a {@link TcpProxy}: the entries of one read
 * commit in one transaction and are acknowledged after it, a failing entry is rolled back, retried
 * and dead-lettered alone while the others commit once and in order, and a database outage pauses
 * the listener without dead-lettering anything. Each test stops its listener's container, adds its
 * entries and starts the container again, so that one read (batch-size 20) takes them all.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRedisStreamTransactionBatchingIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private HikariDataSource direct;

	private JdbcTemplate jdbc;

	private TcpProxy database;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate redis;

	private MeterRegistry meters;

	private BatchedListeners listeners;

	/** A pool on the database itself, for the test's own reads. */
	abstract HikariDataSource directDataSource();

	/** Driver parameters that bound the application's connects and reads, so an outage shows fast. */
	abstract String timeoutParameters();

	@BeforeAll
	void start() {
		this.direct = directDataSource();
		this.jdbc = new JdbcTemplate(this.direct);
		URI uri = URI.create(this.direct.getJdbcUrl().substring("jdbc:".length()));
		this.database = TcpProxy.start(uri.getHost(), uri.getPort());
		String proxied = "jdbc:" + uri.getScheme() + "://127.0.0.1:" + this.database.port() + uri.getPath() + "?"
				+ timeoutParameters() + ((uri.getQuery() != null) ? "&" + uri.getQuery() : "");
		this.context = new SpringApplicationBuilder(BatchingApplication.class).web(WebApplicationType.NONE)
			.properties("it.run=" + RUN, "spring.datasource.url=" + proxied,
					"spring.datasource.username=" + this.direct.getUsername(),
					"spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.validation-timeout=500",
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=6379", "spring.data.redis.timeout=5s",
					"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
					"idempotency.fail-closed.probe-interval=300ms", "idempotency.redis.stream.batch-size=20",
					"idempotency.redis.stream.poll-timeout=200ms", "idempotency.redis.stream.min-idle=1s",
					"idempotency.redis.stream.claim-interval=200ms", "idempotency.redis.stream.max-deliveries=2",
					"idempotency.redis.stream.recovery-back-off=200ms",
					"idempotency.redis.stream.transaction-batching.enabled=true")
			.run();
		this.redis = this.context.getBean(StringRedisTemplate.class);
		this.meters = this.context.getBean(MeterRegistry.class);
		this.listeners = this.context.getBean(BatchedListeners.class);
		StreamTestSupport.awaitEverySubscriptionActive(this.context, java.time.Duration.ofSeconds(10));
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.getBean(RedisStreamListenerRegistry.class).stop();
			for (String listener : List.of("flow", "dup", "poison", "outage")) {
				this.redis.delete(List.of(stream(listener), stream(listener) + ".dlq"));
			}
			this.context.close();
		}
		this.database.close();
		this.jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE ?", "rs-tb-%-" + RUN + "%");
		this.jdbc.execute("DROP TABLE IF EXISTS rs_tb_ledger_" + RUN);
		this.direct.close();
	}

	@Test
	void readIsAppliedInOneTransactionOnceEachAndAcknowledgedAfterItsCommit() {
		List<String> ids = addWhileStopped("flow", orders("flow-", 12));
		await().atMost(20, TimeUnit.SECONDS).until(() -> ledger("flow-%") == 12 && pending("flow") == 0);
		assertThat(this.listeners.calls("flow")).as("method calls").isEqualTo(12);
		// Entry by entry, each order would have had a transaction of its own.
		assertThat(this.listeners.transactions("flow")).as("transactions of the 12 entries").isOne();
		assertThat(this.listeners.pendingAtCommit()).as("pending when their transaction committed")
			.containsOnlyKeys(ids)
			.doesNotContainValue(false);
		assertThat(invocations(this.meters, stream("flow"), "processed")).isEqualTo(12);
		assertThat(deadLetters("flow")).isEmpty();
	}

	@Test
	void duplicateWithinOneReadIsAppliedOnceAndBothEntriesAreAcknowledged() {
		addWhileStopped("dup", List.of("d-1", "d-2", "d-1", "d-3", "d-2"));
		await().atMost(20, TimeUnit.SECONDS).until(() -> ledger("d-%") == 3 && pending("dup") == 0);
		assertThat(ledgerPerOrder("d-%")).containsOnly(Map.entry("d-1", 1), Map.entry("d-2", 1), Map.entry("d-3", 1));
		assertThat(this.listeners.transactions("dup")).as("transactions").isOne();
		assertThat(invocations(this.meters, stream("dup"), "processed")).isEqualTo(3);
		assertThat(invocations(this.meters, stream("dup"), "duplicate")).isEqualTo(2);
	}

	@Test
	void failingEntryIsRetriedAndDeadLetteredAloneWhileTheOthersCommitOnceInOrderAndAreAcknowledged() {
		List<String> sent = new ArrayList<>(orders("p-", 9));
		sent.add(5, "poison");
		sent.add(7, "p-3");
		List<String> ids = addWhileStopped("poison", sent);
		String poison = ids.get(5);
		await().atMost(30, TimeUnit.SECONDS)
			.until(() -> ledger("p-%") == 9 && pending("poison") == 0 && !deadLetters("poison").isEmpty());
		assertThat(ledgerPerOrder("p-%")).hasSize(9).allSatisfy((order, count) -> assertThat(count).isOne());
		assertThat(deadLetters("poison")).singleElement()
			.satisfies((deadLetter) -> assertThat(deadLetter.getValue())
				.containsEntry(RedisStreamListenerContainer.DLQ_ID_FIELD, poison)
				.containsEntry(RedisStreamListenerContainer.DLQ_DELIVERY_COUNT_FIELD, "2"));
		// Two deliveries (max-deliveries); the first also ran in the read's rolled-back transaction.
		assertThat(this.listeners.poisonCalls()).isEqualTo(3);
		assertThat(this.listeners.commits()).as("commits in stream order")
			.containsExactly("p-0", "p-1", "p-2", "p-3", "p-4", "p-5", "p-6", "p-7", "p-8");
		assertThat(invocations(this.meters, stream("poison"), "processed")).isEqualTo(9);
		assertThat(invocations(this.meters, stream("poison"), "duplicate")).isEqualTo(1);
		assertThat(invocations(this.meters, stream("poison"), "failed")).as("one per delivery of the poison")
			.isEqualTo(2);
	}

	@Test
	void databaseOutageUnderABatchedReadPausesTheListenerDeadLettersNothingAndAppliesEveryEntryOnce() {
		RedisStreamListenerContainer container = container("outage");
		container.stop();
		orders("o-", 8).forEach((order) -> add(this.redis, stream("outage"), order(order, 1)));
		this.database.cut();
		try {
			container.start();
			await().atMost(20, TimeUnit.SECONDS).until(() -> pauses() >= 1);
			assertThat(deadLetters("outage")).as("dead letters during the outage").isEmpty();
			assertThat(pending("outage")).as("entries pending during the outage").isEqualTo(8);
		}
		finally {
			this.database.restore();
		}
		await().atMost(30, TimeUnit.SECONDS).until(() -> ledger("o-%") == 8 && pending("outage") == 0);
		assertThat(ledgerPerOrder("o-%")).hasSize(8).allSatisfy((order, count) -> assertThat(count).isOne());
		assertThat(deadLetters("outage")).as("dead letters").isEmpty();
		assertThat(this.listeners.transactions("outage")).as("the read ran again entry by entry after its batch failed")
			.isEqualTo(8);
		assertThat(invocations(this.meters, stream("outage"), "processed")).isEqualTo(8);
	}

	/** Stops the listener's container, adds the orders to its stream and starts it again; returns the ids. */
	private List<String> addWhileStopped(String listener, List<String> orders) {
		RedisStreamListenerContainer container = container(listener);
		container.stop();
		List<String> ids = new ArrayList<>();
		for (String order : orders) {
			ids.add(add(this.redis, stream(listener), order(order, 1)));
		}
		container.start();
		return ids;
	}

	private RedisStreamListenerContainer container(String listener) {
		return this.context.getBean(RedisStreamListenerRegistry.class).getListenerContainer(listener);
	}

	private static List<String> orders(String prefix, int count) {
		List<String> orders = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			orders.add(prefix + i);
		}
		return orders;
	}

	static String stream(String listener) {
		return "rs-tb-" + listener + "-" + RUN;
	}

	private long pending(String listener) {
		return StreamTestSupport.pending(this.redis, stream(listener), stream(listener));
	}

	private List<MapRecord<String, Object, Object>> deadLetters(String listener) {
		return StreamTestSupport.entries(this.redis, stream(listener) + ".dlq");
	}

	private double pauses() {
		Counter counter = this.meters.find(IdempotencyMeters.LISTENER_PAUSES)
			.tag(IdempotencyMeters.LISTENER_TAG, stream("outage") + "/" + stream("outage"))
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private int ledger(String pattern) {
		Integer count = this.jdbc.queryForObject("SELECT COUNT(*) FROM rs_tb_ledger_" + RUN + " WHERE order_id LIKE ?",
				Integer.class, pattern);
		return (count != null) ? count : 0;
	}

	private Map<String, Integer> ledgerPerOrder(String pattern) {
		Map<String, Integer> counts = new java.util.HashMap<>();
		this.jdbc.query("SELECT order_id, COUNT(*) FROM rs_tb_ledger_" + RUN + " WHERE order_id LIKE ? GROUP BY order_id",
				(rs) -> {
					counts.put(rs.getString(1), rs.getInt(2));
				}, pattern);
		return counts;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class BatchingApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		BatchedListeners batchedListeners(JdbcTemplate jdbc, DataSource dataSource, StringRedisTemplate redis,
				@Value("${it.run}") String run) {
			jdbc.execute("CREATE TABLE rs_tb_ledger_" + run + " (order_id VARCHAR(64) NOT NULL)");
			return new BatchedListeners(jdbc, dataSource, redis, run);
		}

	}

	static class BatchedListeners {

		private final JdbcTemplate jdbc;

		private final StringRedisTemplate redis;

		private final String run;

		private final TransactionsSeen transactions;

		private final Map<String, Boolean> pendingAtCommit = new ConcurrentHashMap<>();

		private final AtomicInteger poisonCalls = new AtomicInteger();

		private final List<String> commits = new CopyOnWriteArrayList<>();

		BatchedListeners(JdbcTemplate jdbc, DataSource dataSource, StringRedisTemplate redis, String run) {
			this.jdbc = jdbc;
			this.transactions = new TransactionsSeen(dataSource);
			this.redis = redis;
			this.run = run;
		}

		// Accessors, not fields: the test sees the bean through its @Idempotent proxy.

		/** Calls of a listener's method that got as far as its write. */
		public int calls(String listener) {
			return this.transactions.calls(listener);
		}

		/** Distinct transactions a listener's method wrote in. */
		public int transactions(String listener) {
			return this.transactions.transactions(listener);
		}

		/** Whether each entry of the flow listener was still pending when its transaction committed. */
		public Map<String, Boolean> pendingAtCommit() {
			return this.pendingAtCommit;
		}

		public int poisonCalls() {
			return this.poisonCalls.get();
		}

		/** The orders of the poison listener whose transaction committed, in the order it did. */
		public List<String> commits() {
			return this.commits;
		}

		@RedisStreamListener(id = "flow", stream = "rs-tb-flow-${it.run}", group = "rs-tb-flow-${it.run}")
		@Idempotent(key = "#order.orderId()")
		public void onFlow(Order order) {
			String recordId = String.valueOf(DeliveryContextHolder.current().variables().get("recordId"));
			String stream = "rs-tb-flow-" + this.run;
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void beforeCommit(boolean readOnly) {
					BatchedListeners.this.pendingAtCommit.put(recordId, !BatchedListeners.this.redis.opsForStream()
						.pending(stream, stream, Range.closed(recordId, recordId), 1)
						.isEmpty());
				}

			});
			apply("flow", order);
		}

		@RedisStreamListener(id = "dup", stream = "rs-tb-dup-${it.run}", group = "rs-tb-dup-${it.run}")
		@Idempotent(key = "#order.orderId()")
		public void onDup(Order order) {
			apply("dup", order);
		}

		@RedisStreamListener(id = "poison", stream = "rs-tb-poison-${it.run}", group = "rs-tb-poison-${it.run}")
		@Idempotent(key = "#order.orderId()")
		public void onPossiblePoison(Order order) {
			if (order.orderId().startsWith("poison")) {
				this.poisonCalls.incrementAndGet();
				throw new IllegalStateException("poison entry " + order.orderId());
			}
			apply("poison", order);
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					BatchedListeners.this.commits.add(order.orderId());
				}

			});
		}

		@RedisStreamListener(id = "outage", stream = "rs-tb-outage-${it.run}", group = "rs-tb-outage-${it.run}")
		@Idempotent(key = "#order.orderId()")
		public void onOutage(Order order) {
			apply("outage", order);
		}

		private void apply(String listener, Order order) {
			this.transactions.record(listener);
			this.jdbc.update("INSERT INTO rs_tb_ledger_" + this.run + " (order_id) VALUES (?)", order.orderId());
		}

	}

}
