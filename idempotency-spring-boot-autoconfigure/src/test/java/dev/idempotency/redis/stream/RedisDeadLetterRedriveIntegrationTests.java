package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.MessageFields;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.testsupport.TestDatabases;
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
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.awaitEverySubscriptionActive;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link DeadLetterStreamRedrive} as auto-configured, on the real Redis and PostgreSQL: an entry
 * given up while its listener fails is, once the listener is fixed, re-driven to its stream with
 * its {@code message-id} and processed once, also when the crash window sends it twice; a dry run
 * sends nothing and removes nothing. Stream names are unique per run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisDeadLetterRedriveIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final String ORDERS = "rs-redrive-orders-" + RUN;

	private static final String DLQ = ORDERS + ".dlq";

	private static final String GROUP = "rs-redrive-points-" + RUN;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	private StringRedisTemplate redis;

	private DeadLetterStreamRedrive redrive;

	private Listener listener;

	@BeforeAll
	void start() {
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("it.run=" + RUN, "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=6379", "spring.data.redis.timeout=5s",
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.redis.stream.batch-size=1", "idempotency.redis.stream.poll-timeout=200ms",
				"idempotency.redis.stream.min-idle=300ms", "idempotency.redis.stream.claim-interval=100ms",
				"idempotency.redis.stream.max-deliveries=2", "idempotency.redis.stream.recovery-back-off=100ms"));
		this.context = new SpringApplicationBuilder(RedriveApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.redis = this.context.getBean(StringRedisTemplate.class);
		this.redrive = this.context.getBean(DeadLetterStreamRedrive.class);
		this.listener = this.context.getBean(Listener.class);
		awaitEverySubscriptionActive(this.context, Duration.ofSeconds(10));
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.getBean(RedisStreamListenerRegistry.class).stop();
			this.redis.delete(List.of(ORDERS, DLQ));
			this.context.close();
		}
	}

	@Test
	void deadLetteredEntryIsRedrivenAfterTheFixProcessedOnceAndRemovedFromTheDeadLetterStream() {
		this.listener.fail("order-1");
		String sourceId = add("msg-1", order("order-1", 10));
		DeadLetterStreamRedrive.DeadEntry deadEntry = awaitDeadEntry("msg-1");
		assertThat(deadEntry.sourceId()).isEqualTo(sourceId);
		this.listener.fix("order-1");

		DeadLetterStreamRedrive.Report report = this.redrive.redrive(ORDERS, deadEntry.id(), 1);

		assertThat(report.dryRun()).isFalse();
		assertThat(report.entries()).containsExactly(deadEntry);
		await().atMost(30, TimeUnit.SECONDS).until(() -> ledger("order-1") == 1);
		assertThat(this.redis.opsForStream().range(DLQ, Range.closed(deadEntry.id(), deadEntry.id()))).isEmpty();
		List<Map<Object, Object>> copies = StreamTestSupport.entries(this.redis, ORDERS)
			.stream()
			.filter((entry) -> "msg-1".equals(entry.getValue().get(MessageFields.MESSAGE_ID)))
			.map((entry) -> entry.getValue())
			.toList();
		assertThat(copies).hasSize(2).allSatisfy((fields) -> assertThat(fields.keySet())
			.containsExactlyInAnyOrder(MessageFields.MESSAGE_ID, MessageFields.PAYLOAD));
	}

	@Test
	void entrySentTwiceByTheCrashWindowIsProcessedOnce() {
		this.listener.fail("order-2");
		add("msg-2", order("order-2", 10));
		DeadLetterStreamRedrive.DeadEntry deadEntry = awaitDeadEntry("msg-2");
		Map<Object, Object> deadFields = new LinkedHashMap<>(StreamTestSupport.entries(this.redis, DLQ)
			.stream()
			.filter((entry) -> entry.getId().getValue().equals(deadEntry.id()))
			.findFirst()
			.orElseThrow()
			.getValue());
		this.listener.fix("order-2");
		assertThat(this.redrive.redrive(ORDERS, deadEntry.id(), 1).sent()).isEqualTo(1);
		await().atMost(30, TimeUnit.SECONDS).until(() -> ledger("order-2") == 1);
		// The crash window: the XADD happened, the XDEL did not, so the next re-drive sends it again
		String again = this.redis.opsForStream()
			.add(StreamRecords.newRecord().in(DLQ).ofMap(deadFields))
			.getValue();
		long duplicates = duplicates();
		assertThat(this.redrive.redrive(ORDERS, again, 1).sent()).isEqualTo(1);
		await().atMost(30, TimeUnit.SECONDS).until(() -> duplicates() > duplicates);
		assertThat(ledger("order-2")).isEqualTo(1);
	}

	@Test
	void dryRunReportsTheEntryAndNeitherSendsNorRemoves() throws Exception {
		this.listener.fail("order-3");
		String sourceId = add("msg-3", order("order-3", 10));
		DeadLetterStreamRedrive.DeadEntry deadEntry = awaitDeadEntry("msg-3");
		this.listener.fix("order-3");
		long streamLength = this.redis.opsForStream().size(ORDERS);
		long deadLength = this.redis.opsForStream().size(DLQ);

		DeadLetterStreamRedrive.Report report = this.redrive.preview(ORDERS, deadEntry.id(), 1);

		assertThat(report.dryRun()).isTrue();
		assertThat(report.sent()).isZero();
		assertThat(report.deadLetterStream()).isEqualTo(DLQ);
		assertThat(report.entries()).singleElement().satisfies((entry) -> {
			assertThat(entry.sourceStream()).isEqualTo(ORDERS);
			assertThat(entry.sourceId()).isEqualTo(sourceId);
			assertThat(entry.group()).isEqualTo(GROUP);
			assertThat(entry.deliveryCount()).isEqualTo(2);
			assertThat(entry.messageId()).isEqualTo("msg-3");
			assertThat(entry.error()).contains("broken order-3");
		});
		assertThat(report.nextId()).isGreaterThan(deadEntry.id());
		Thread.sleep(500);
		assertThat(this.redis.opsForStream().size(ORDERS)).isEqualTo(streamLength);
		assertThat(this.redis.opsForStream().size(DLQ)).isEqualTo(deadLength);
		assertThat(ledger("order-3")).isZero();
	}

	@Test
	void pagesByRecordId() {
		for (int i = 0; i < 3; i++) {
			this.listener.fail("page-" + i);
		}
		for (int i = 0; i < 3; i++) {
			add("page-msg-" + i, order("page-" + i, 1));
		}
		DeadLetterStreamRedrive.DeadEntry first = awaitDeadEntry("page-msg-0");
		awaitDeadEntry("page-msg-1");
		awaitDeadEntry("page-msg-2");
		DeadLetterStreamRedrive.Report page = this.redrive.preview(ORDERS, first.id(), 2);
		assertThat(page.entries()).hasSize(2);
		DeadLetterStreamRedrive.Report next = this.redrive.preview(ORDERS, page.nextId(), 200);
		assertThat(next.entries()).noneMatch(page.entries()::contains);
		List<String> seen = new ArrayList<>();
		page.entries().forEach((entry) -> seen.add(entry.messageId()));
		next.entries().forEach((entry) -> seen.add(entry.messageId()));
		assertThat(seen).contains("page-msg-0", "page-msg-1", "page-msg-2");
	}

	private String add(String messageId, String payload) {
		return this.redis.opsForStream()
			.add(StreamRecords.newRecord()
				.in(ORDERS)
				.ofMap(Map.of(MessageFields.MESSAGE_ID, messageId, MessageFields.PAYLOAD, payload)))
			.getValue();
	}

	private DeadLetterStreamRedrive.DeadEntry awaitDeadEntry(String messageId) {
		return await().atMost(30, TimeUnit.SECONDS)
			.until(() -> this.redrive.preview(ORDERS, null, 200)
				.entries()
				.stream()
				.filter((entry) -> messageId.equals(entry.messageId()))
				.findFirst()
				.orElse(null), (found) -> found != null);
	}

	private int ledger(String orderId) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM redis_redrive_it_ledger WHERE order_id = ?",
				Integer.class, orderId);
	}

	private long duplicates() {
		return StreamTestSupport.invocations(this.context.getBean(MeterRegistry.class), GROUP, "duplicate");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RedriveApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Listener redriveListener(JdbcTemplate jdbc) {
			jdbc.execute("DROP TABLE IF EXISTS redis_redrive_it_ledger");
			jdbc.execute("CREATE TABLE redis_redrive_it_ledger (order_id VARCHAR(64) NOT NULL)");
			return new Listener(jdbc);
		}

	}

	static class Listener {

		// Fields of the target: the bean is a proxy (@Idempotent), so tests go through methods
		private final Set<String> failing = ConcurrentHashMap.newKeySet();

		private final JdbcTemplate jdbc;

		Listener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		public void fail(String order) {
			this.failing.add(order);
		}

		public void fix(String order) {
			this.failing.remove(order);
		}

		// The key is the message-id field: the same on every re-drive
		@RedisStreamListener(id = "redrive", stream = "rs-redrive-orders-${it.run}",
				group = "rs-redrive-points-${it.run}")
		@Idempotent
		public void onOrder(Order order) {
			if (this.failing.contains(order.orderId())) {
				throw new IllegalStateException("broken " + order.orderId());
			}
			this.jdbc.update("INSERT INTO redis_redrive_it_ledger (order_id) VALUES (?)", order.orderId());
		}

	}

}
