package dev.idempotency.redis.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.testsupport.TestDatabases;
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
import org.springframework.data.redis.connection.stream.PendingMessage;
import org.springframework.data.redis.connection.stream.PendingMessages;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The entries of one read are acknowledged together, on the consumer's own connection, after the
 * read's last entry: each only once its transaction committed, a failed entry never, a duplicate
 * always. A gate entry holds the consumer while the test adds the entries, so that one read
 * (batch-size 10) takes them all. The real Redis at 127.0.0.1:6379 and the real PostgreSQL; min-idle
 * is long, so no claim delivers an entry again during a test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisStreamBatchAcknowledgementIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final String STREAM = "rs-batch-ack-" + RUN;

	private static final String GROUP = "rs-batch-ack-" + RUN;

	private ConfigurableApplicationContext context;

	private StringRedisTemplate redis;

	private JdbcTemplate jdbc;

	private Listener listener;

	@BeforeAll
	void start() {
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("it.run=" + RUN, "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=6379",
				"spring.data.redis.timeout=5s", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.redis.stream.batch-size=10",
				"idempotency.redis.stream.poll-timeout=200ms", "idempotency.redis.stream.min-idle=60s",
				"idempotency.redis.stream.claim-interval=100ms", "idempotency.redis.stream.max-deliveries=3"));
		this.context = new SpringApplicationBuilder(BatchApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.redis = this.context.getBean(StringRedisTemplate.class);
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.listener = this.context.getBean(Listener.class);
		RedisStreamListenerContainer container = this.context.getBean(RedisStreamListenerRegistry.class)
			.getListenerContainer("batch");
		await().atMost(10, TimeUnit.SECONDS).until(() -> container.getActiveSubscriptions() == 1);
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.getBean(RedisStreamListenerRegistry.class).stop();
			this.redis.delete(List.of(STREAM, STREAM + ".dlq"));
			this.context.close();
		}
	}

	@Test
	void eachEntryOfAReadIsStillPendingWhenItsTransactionCommits() throws Exception {
		List<String> ids = addBehindGate("commit-", 6);
		await().atMost(20, TimeUnit.SECONDS).until(() -> ledger("commit-%") == 6 && pendingIds().isEmpty());
		assertThat(this.listener.pendingAtCommit()).as("pending when its transaction committed")
			.containsAllEntriesOf(Map.of(ids.get(0), true, ids.get(1), true, ids.get(2), true, ids.get(3), true,
					ids.get(4), true, ids.get(5), true));
	}

	@Test
	void failedEntryOfAReadStaysPendingWhileTheOthersAndTheDuplicateAreAcknowledged() throws Exception {
		CountDownLatch gate = this.listener.closeGate();
		add(this.redis, STREAM, order("gate-fail", 0));
		assertThat(this.listener.awaitGate()).isTrue();
		String first = add(this.redis, STREAM, order("mixed-1", 1));
		String second = add(this.redis, STREAM, order("mixed-2", 1));
		String failing = add(this.redis, STREAM, order("fail-mixed", 1));
		String fourth = add(this.redis, STREAM, order("mixed-4", 1));
		String duplicate = add(this.redis, STREAM, order("mixed-1", 1));
		gate.countDown();
		await().atMost(20, TimeUnit.SECONDS)
			.until(() -> ledger("mixed-%") == 3 && this.listener.attempts().containsKey("fail-mixed")
					&& pendingIds().size() == 1);
		// Long enough for any later XACK of the same read to have been sent.
		Thread.sleep(500);
		List<PendingMessage> pending = pendingMessages();
		assertThat(pending).extracting((message) -> message.getIdAsString()).containsExactly(failing);
		assertThat(pending.get(0).getTotalDeliveryCount()).isEqualTo(1);
		assertThat(this.listener.attempts()).containsEntry("fail-mixed", 1);
		assertThat(List.of(first, second, fourth, duplicate)).doesNotContainAnyElementsOf(pendingIds());
		assertThat(ledger("mixed-1")).as("the duplicate applied once").isEqualTo(1);
	}

	/** Adds a gate entry, then {@code count} entries while the consumer waits in the gate. */
	private List<String> addBehindGate(String prefix, int count) throws InterruptedException {
		CountDownLatch gate = this.listener.closeGate();
		add(this.redis, STREAM, order("gate-" + prefix, 0));
		assertThat(this.listener.awaitGate()).isTrue();
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			ids.add(add(this.redis, STREAM, order(prefix + i, 1)));
		}
		gate.countDown();
		return ids;
	}

	private int ledger(String pattern) {
		Integer count = this.jdbc.queryForObject("SELECT COUNT(*) FROM redis_stream_batch_ledger WHERE order_id LIKE ?",
				Integer.class, pattern);
		return (count != null) ? count : 0;
	}

	private List<PendingMessage> pendingMessages() {
		PendingMessages messages = this.redis.opsForStream().pending(STREAM, GROUP, Range.unbounded(), 100);
		List<PendingMessage> list = new ArrayList<>();
		messages.forEach(list::add);
		return list;
	}

	private List<String> pendingIds() {
		return pendingMessages().stream().map(PendingMessage::getIdAsString).toList();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class BatchApplication {

		@Bean
		Listener listener(JdbcTemplate jdbc, StringRedisTemplate redis) {
			jdbc.execute("DROP TABLE IF EXISTS redis_stream_batch_ledger");
			jdbc.execute("CREATE TABLE redis_stream_batch_ledger (order_id VARCHAR(64) NOT NULL)");
			return new Listener(jdbc, redis);
		}

	}

	static class Listener {

		private final JdbcTemplate jdbc;

		private final StringRedisTemplate redis;

		private final Map<String, Boolean> pendingAtCommit = new ConcurrentHashMap<>();

		private final Map<String, Integer> attempts = new ConcurrentHashMap<>();

		private volatile CountDownLatch gate = new CountDownLatch(0);

		private volatile CountDownLatch inGate = new CountDownLatch(1);

		Listener(JdbcTemplate jdbc, StringRedisTemplate redis) {
			this.jdbc = jdbc;
			this.redis = redis;
		}

		// Accessors, not fields: the test sees the bean through its @Idempotent proxy.

		public Map<String, Boolean> pendingAtCommit() {
			return this.pendingAtCommit;
		}

		public Map<String, Integer> attempts() {
			return this.attempts;
		}

		public CountDownLatch closeGate() {
			this.inGate = new CountDownLatch(1);
			this.gate = new CountDownLatch(1);
			return this.gate;
		}

		public boolean awaitGate() throws InterruptedException {
			return this.inGate.await(10, TimeUnit.SECONDS);
		}

		@RedisStreamListener(id = "batch", stream = "rs-batch-ack-${it.run}", group = "rs-batch-ack-${it.run}")
		@Idempotent(key = "#order.orderId()")
		public void onOrder(Order order) throws InterruptedException {
			String orderId = order.orderId();
			if (orderId.startsWith("gate-")) {
				this.inGate.countDown();
				this.gate.await(10, TimeUnit.SECONDS);
				return;
			}
			this.attempts.merge(orderId, 1, Integer::sum);
			if (orderId.startsWith("fail-")) {
				throw new IllegalStateException("failing " + orderId);
			}
			String recordId = String.valueOf(java.util.Objects.requireNonNull(DeliveryContextHolder.current()).variables().get("recordId"));
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void beforeCommit(boolean readOnly) {
					Listener.this.pendingAtCommit.put(recordId, isPending(recordId));
				}

			});
			this.jdbc.update("INSERT INTO redis_stream_batch_ledger (order_id) VALUES (?)", orderId);
		}

		private boolean isPending(String recordId) {
			PendingMessages pending = this.redis.opsForStream()
				.pending(STREAM, GROUP, Range.closed(recordId, recordId), 1);
			return !pending.isEmpty();
		}

	}

}
