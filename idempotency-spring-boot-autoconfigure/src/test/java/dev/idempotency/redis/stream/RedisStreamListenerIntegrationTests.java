package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.MessageFields;
import dev.idempotency.redis.stream.StreamTestSupport.Order;
import dev.idempotency.redis.stream.metrics.RedisStreamMeters;
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
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static dev.idempotency.redis.stream.StreamTestSupport.add;
import static dev.idempotency.redis.stream.StreamTestSupport.awaitEverySubscriptionActive;
import static dev.idempotency.redis.stream.StreamTestSupport.order;
import static dev.idempotency.redis.stream.StreamTestSupport.pending;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} {@code @RedisStreamListener}s in transactional mode: the real Redis at
 * 127.0.0.1:6379 and the real PostgreSQL, the dedup row in the business transaction, XACK after
 * commit. Stream and group names are unique per run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisStreamListenerIntegrationTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final String ORDERS = "rs-it-orders-" + RUN;

	private static final String POINTS = "rs-it-points-" + RUN;

	private static final String RACE = "rs-it-race-" + RUN;

	private static final String CLAIM = "rs-it-claim-" + RUN;

	private static final String CLAIM_CONSUMER = "rs-it-claimer-" + RUN;

	private static final String IDS = "rs-it-ids-" + RUN;

	private static final String ESCAPED = "rs-it-escaped-" + RUN;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	private StringRedisTemplate redis;

	private MeterRegistry meters;

	private Listeners listeners;

	@BeforeAll
	void start() {
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("it.run=" + RUN, "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=6379", "spring.data.redis.timeout=5s",
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.redis.stream.batch-size=1", "idempotency.redis.stream.poll-timeout=200ms",
				"idempotency.redis.stream.min-idle=400ms", "idempotency.redis.stream.claim-interval=100ms",
				"idempotency.redis.stream.max-deliveries=3", "idempotency.redis.stream.recovery-back-off=100ms"));
		this.context = new SpringApplicationBuilder(StreamApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.redis = this.context.getBean(StringRedisTemplate.class);
		this.meters = this.context.getBean(MeterRegistry.class);
		this.listeners = this.context.getBean(Listeners.class);
		awaitEverySubscriptionActive(this.context, Duration.ofSeconds(10));
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			// Stop reading first: deleting a stream under a running listener would recreate its group.
			this.context.getBean(RedisStreamListenerRegistry.class).stop();
			this.redis.delete(List.of(ORDERS, ORDERS + ".dlq", RACE, CLAIM, IDS, ESCAPED));
			this.jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE ?", "rs-it-%-" + RUN + ":%");
			this.context.close();
		}
	}

	@Test
	void entryAddedTwiceWithTheSameKeyIsAppliedOnceAndBothAreAcknowledged() {
		for (int i = 0; i < 20; i++) {
			add(this.redis, ORDERS, order("dup-" + i, 10));
			add(this.redis, ORDERS, order("dup-" + i, 10));
		}
		await().atMost(30, TimeUnit.SECONDS).until(() -> ledger("dup-%") == 20 && duplicates(POINTS) >= 20);
		assertThat(this.jdbc.queryForList("SELECT order_id FROM redis_stream_it_ledger WHERE order_id LIKE 'dup-%' "
				+ "GROUP BY order_id HAVING COUNT(*) > 1", String.class)).isEmpty();
		await().atMost(10, TimeUnit.SECONDS).until(() -> pendingIds(ORDERS, POINTS, "dup-").isEmpty());
	}

	@Test
	void messageIdFieldNamingAnotherEntrysIdSuppressesNeitherEntry() {
		// A's field names B's entry (a later one without the field); D's names C's (an earlier one).
		addWithId(IDS, "1-1", order("id-A", 1), IDS + ":2-1");
		addWithId(IDS, "2-1", order("id-B", 1), null);
		addWithId(IDS, "3-1", order("id-C", 1), null);
		addWithId(IDS, "4-1", order("id-D", 1), IDS + ":3-1");
		awaitAllReadAndAcknowledged(IDS, "4-1");
		assertThat(ledger("id-%")).isEqualTo(4);
		// Each entry under its own key. (A duplicate outcome may still show up here when the 400 ms
		// min-idle claims an entry in flight on a busy machine; it is then a duplicate of its own key.)
		await().atMost(5, TimeUnit.SECONDS)
			.untilAsserted(() -> assertThat(this.context.getBean(ProcessedKeys.class).of(IDS)).containsExactlyInAnyOrder(
					IDS + ":2-1", "~redis-stream:" + IDS + ":2-1", "~redis-stream:" + IDS + ":3-1", IDS + ":3-1"));
		assertThat(StreamTestSupport.invocations(this.meters, IDS, "processed")).isEqualTo(4);
	}

	@Test
	void messageIdFieldSpelledLikeADerivedIdSuppressesNothing() {
		// The field spells the derived id of the entry after it; escaping keeps the two apart.
		addWithId(ESCAPED, "1-1", order("esc-E", 1), "~redis-stream:" + ESCAPED + ":2-1");
		addWithId(ESCAPED, "2-1", order("esc-F", 1), null);
		awaitAllReadAndAcknowledged(ESCAPED, "2-1");
		assertThat(ledger("esc-%")).isEqualTo(2);
		await().atMost(5, TimeUnit.SECONDS)
			.untilAsserted(() -> assertThat(this.context.getBean(ProcessedKeys.class).of(ESCAPED))
				.containsExactlyInAnyOrder("~~redis-stream:" + ESCAPED + ":2-1", "~redis-stream:" + ESCAPED + ":2-1"));
	}

	/** Waits until the group has read up to {@code lastId} and nothing is pending: every entry committed. */
	private void awaitAllReadAndAcknowledged(String stream, String lastId) {
		await().atMost(30, TimeUnit.SECONDS)
			.until(() -> this.redis.opsForStream()
				.groups(stream)
				.stream()
				.anyMatch((group) -> group.groupName().equals(stream) && group.lastDeliveredId().equals(lastId)
						&& group.pendingCount() == 0));
	}

	@Test
	void listenerExceptionDoesNotStopTheSubscription() {
		add(this.redis, ORDERS, order("fail-once", 1));
		await().atMost(10, TimeUnit.SECONDS).until(() -> this.listeners.failedOnce().contains("fail-once"));
		add(this.redis, ORDERS, order("after-failure", 1));
		await().atMost(10, TimeUnit.SECONDS).until(() -> ledger("after-failure") == 1);
		// Read by the subscription, not recovered by the claim task: the subscription survived.
		assertThat(this.listeners.threads().get("after-failure")).startsWith("redis-stream-points-");
		RedisStreamListenerContainer container = this.context.getBean(RedisStreamListenerRegistry.class)
			.getListenerContainer("points");
		assertThat(container.getActiveSubscriptions()).isEqualTo(1);
		// The failed entry stayed pending and is delivered again after min-idle.
		await().atMost(10, TimeUnit.SECONDS).until(() -> ledger("fail-once") == 1);
		assertThat(this.listeners.threads().get("fail-once")).startsWith("redis-stream-recovery-");
	}

	@Test
	void poisonEntryGoesToTheDeadLetterStreamAfterMaxDeliveriesAndLaterEntriesFlow() {
		String poisonId = add(this.redis, ORDERS, order("poison-1", 10));
		add(this.redis, ORDERS, order("after-poison", 10));
		await().atMost(10, TimeUnit.SECONDS).until(() -> ledger("after-poison") == 1);
		await().atMost(20, TimeUnit.SECONDS).until(() -> deadLetters("poison-1").size() == 1);
		Map<Object, Object> deadLetter = deadLetters("poison-1").get(0).getValue();
		assertThat(deadLetter).containsEntry("payload", order("poison-1", 10))
			.containsEntry(RedisStreamListenerContainer.DLQ_SOURCE_FIELD, ORDERS)
			.containsEntry(RedisStreamListenerContainer.DLQ_ID_FIELD, poisonId)
			.containsEntry(RedisStreamListenerContainer.DLQ_GROUP_FIELD, POINTS)
			.containsEntry(RedisStreamListenerContainer.DLQ_DELIVERY_COUNT_FIELD, "3");
		assertThat((String) deadLetter.get(RedisStreamListenerContainer.DLQ_ERROR_FIELD))
			.contains("IllegalStateException")
			.contains("poison order poison-1");
		assertThat(this.listeners.attempts().get("poison-1")).isEqualTo(3);
		assertThat(ledger("poison-1")).isZero();
		await().atMost(5, TimeUnit.SECONDS).until(() -> !pendingIdSet(ORDERS, POINTS).contains(poisonId));
		assertThat(StreamTestSupport.deadLettered(this.meters, ORDERS)).isGreaterThanOrEqualTo(1);
	}

	@Test
	void undeserializablePayloadIsDeadLetteredAtOnce() {
		String id = add(this.redis, ORDERS, "{not json");
		await().atMost(10, TimeUnit.SECONDS)
			.until(() -> entriesOf(ORDERS + ".dlq").stream()
				.anyMatch((entry) -> id.equals(entry.getValue().get(RedisStreamListenerContainer.DLQ_ID_FIELD))));
		MapRecord<String, Object, Object> deadLetter = entriesOf(ORDERS + ".dlq").stream()
			.filter((entry) -> id.equals(entry.getValue().get(RedisStreamListenerContainer.DLQ_ID_FIELD)))
			.findFirst()
			.orElseThrow();
		assertThat(deadLetter.getValue()).containsEntry(RedisStreamListenerContainer.DLQ_DELIVERY_COUNT_FIELD, "1");
		assertThat((String) deadLetter.getValue().get(RedisStreamListenerContainer.DLQ_ERROR_FIELD))
			.contains("Exception");
		assertThat(pendingIdSet(ORDERS, POINTS)).doesNotContain(id);
	}

	@Test
	void racingConsumersOfOneKeyApplyItOnce() {
		RedisStreamListenerContainer race = this.context.getBean(RedisStreamListenerRegistry.class)
			.getListenerContainer("race");
		assertThat(race.getActiveSubscriptions()).isEqualTo(2);
		for (int i = 0; i < 5; i++) {
			add(this.redis, RACE, order("race-" + i, 1));
			add(this.redis, RACE, order("race-" + i, 1));
		}
		await().atMost(30, TimeUnit.SECONDS)
			.until(() -> StreamTestSupport.invocations(this.meters, RACE, "processed")
					+ StreamTestSupport.invocations(this.meters, RACE, "duplicate") >= 10);
		assertThat(ledger("race-%")).isEqualTo(5);
		assertThat(StreamTestSupport.invocations(this.meters, RACE, "processed")).isEqualTo(5);
		// Both consumers took part (whichever of them found the duplicate): the race was real.
		assertThat(this.context.getBean(OutcomeThreads.class).threads)
			.filteredOn((thread) -> thread.startsWith("redis-stream-race-"))
			.hasSizeGreaterThanOrEqualTo(2);
		await().atMost(10, TimeUnit.SECONDS).until(() -> pending(this.redis, RACE, RACE) == 0);
	}

	@Test
	void entriesOfAConsumerThatDiedAreClaimedAfterMinIdleAndAppliedOnce() {
		RedisStreamListenerContainer container = this.context.getBean(RedisStreamListenerRegistry.class)
			.getListenerContainer("claim");
		assertThat(container.getConsumerNames()).containsExactly(CLAIM_CONSUMER);
		container.stop();
		add(this.redis, CLAIM, order("orphan", 5));
		add(this.redis, CLAIM, order("own", 5));
		// Another consumer reads the first entry and dies without acknowledging it; this container's
		// own consumer (a stable name) had read the second one before it stopped.
		assertThat(readAs("dead-consumer", 1)).hasSize(1);
		assertThat(readAs(CLAIM_CONSUMER, 1)).hasSize(1);
		assertThat(pending(this.redis, CLAIM, CLAIM)).isEqualTo(2);
		container.start();
		await().atMost(10, TimeUnit.SECONDS).until(() -> ledger("own") == 1);
		// Its own pending entry is read first, at start, not claimed.
		assertThat(this.listeners.threads().get("own")).startsWith("redis-stream-claim-");
		await().atMost(10, TimeUnit.SECONDS).until(() -> ledger("orphan") == 1);
		assertThat(this.listeners.threads().get("orphan")).startsWith("redis-stream-recovery-");
		await().atMost(10, TimeUnit.SECONDS).until(() -> pending(this.redis, CLAIM, CLAIM) == 0);
		assertThat(StreamTestSupport.counter(this.meters, RedisStreamMeters.STREAM_RECLAIMED, CLAIM))
			.isGreaterThanOrEqualTo(1);
		assertThat(ledger("orphan")).isEqualTo(1);
		await().atMost(5, TimeUnit.SECONDS)
			.until(() -> StreamTestSupport.gauge(this.meters, RedisStreamMeters.STREAM_PENDING, CLAIM) == 0);
	}

	@Test
	void pendingEntryTrimmedFromTheStreamIsAcknowledgedAndCounted() {
		RedisStreamListenerContainer container = this.context.getBean(RedisStreamListenerRegistry.class)
			.getListenerContainer("claim");
		container.stop();
		String id = add(this.redis, CLAIM, order("trimmed", 5));
		assertThat(readAs("doomed-consumer", 1)).hasSize(1);
		this.redis.opsForStream().delete(CLAIM, id);
		container.start();
		await().atMost(10, TimeUnit.SECONDS)
			.until(() -> StreamTestSupport.counter(this.meters, RedisStreamMeters.STREAM_TRIMMED, CLAIM) >= 1);
		assertThat(pendingIdSet(CLAIM, CLAIM)).doesNotContain(id);
		assertThat(ledger("trimmed")).isZero();
	}

	/** {@code XADD <stream> <id> payload <payload> [message-id <messageId>]}. */
	private void addWithId(String stream, String id, String payload, String messageId) {
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("payload", payload);
		if (messageId != null) {
			fields.put(MessageFields.MESSAGE_ID, messageId);
		}
		RecordId added = this.redis.opsForStream()
			.add(StreamRecords.newRecord().in(stream).withId(RecordId.of(id)).ofMap(fields));
		assertThat(added.getValue()).isEqualTo(id);
	}

	private List<MapRecord<String, String, String>> readAs(String consumer, int count) {
		return this.redis.<String, String>opsForStream()
			.read(Consumer.from(CLAIM, consumer), StreamReadOptions.empty().count(count),
					StreamOffset.create(CLAIM, ReadOffset.lastConsumed()));
	}

	private int ledger(String pattern) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM redis_stream_it_ledger WHERE order_id LIKE ?",
				Integer.class, pattern);
	}

	private long duplicates(String group) {
		return StreamTestSupport.invocations(this.meters, group, "duplicate");
	}

	private List<MapRecord<String, Object, Object>> deadLetters(String orderId) {
		return entriesOf(ORDERS + ".dlq").stream()
			.filter((entry) -> order(orderId, 10).equals(entry.getValue().get("payload")))
			.toList();
	}

	private List<MapRecord<String, Object, Object>> entriesOf(String stream) {
		return StreamTestSupport.entries(this.redis, stream);
	}

	private Set<String> pendingIdSet(String stream, String group) {
		Set<String> ids = ConcurrentHashMap.newKeySet();
		this.redis.opsForStream()
			.pending(stream, group, org.springframework.data.domain.Range.unbounded(), 1000)
			.forEach((message) -> ids.add(message.getIdAsString()));
		return ids;
	}

	private List<String> pendingIds(String stream, String group, String orderPrefix) {
		Set<String> pendingIds = pendingIdSet(stream, group);
		return entriesOf(stream).stream()
			.filter((entry) -> pendingIds.contains(entry.getId().getValue()))
			.filter((entry) -> String.valueOf(entry.getValue().get("payload")).contains(orderPrefix))
			.map((entry) -> entry.getId().getValue())
			.toList();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class StreamApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		ProcessedKeys processedKeys() {
			return new ProcessedKeys();
		}

		@Bean
		OutcomeThreads outcomeThreads() {
			return new OutcomeThreads(RACE);
		}

		@Bean
		Listeners listeners(JdbcTemplate jdbc) {
			jdbc.execute("DROP TABLE IF EXISTS redis_stream_it_ledger");
			jdbc.execute("CREATE TABLE redis_stream_it_ledger (order_id VARCHAR(64) NOT NULL, points INT NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE 'rs-it-%'");
			return new Listeners(jdbc);
		}

	}

	/** Records the threads on which a namespace's invocations ended, duplicates included. */
	static class OutcomeThreads implements IdempotencyListener {

		private final String group;

		final Set<String> threads = ConcurrentHashMap.newKeySet();

		OutcomeThreads(String group) {
			this.group = group;
		}

		@Override
		public void onOutcome(IdempotencyEvent event) {
			if (event.namespace().startsWith(this.group + ":")) {
				this.threads.add(Thread.currentThread().getName());
			}
		}

	}

	/** The keys processed per consumer group, in order. */
	static class ProcessedKeys implements IdempotencyListener {

		private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onOutcome(IdempotencyEvent event) {
			this.events.add(event);
		}

		List<String> of(String group) {
			return this.events.stream()
				.filter((event) -> event.namespace().startsWith(group + ":")
						&& event.outcome() == IdempotencyOutcome.PROCESSED)
				.map(IdempotencyEvent::key)
				.toList();
		}

	}

	static class Listeners {

		private final JdbcTemplate jdbc;

		final Set<String> failedOnce = ConcurrentHashMap.newKeySet();

		final Map<String, Integer> attempts = new ConcurrentHashMap<>();

		final Map<String, String> threads = new ConcurrentHashMap<>();

		Listeners(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		// Accessors, not fields: the test sees the bean through its @Idempotent proxy.

		public Set<String> failedOnce() {
			return this.failedOnce;
		}

		public Map<String, Integer> attempts() {
			return this.attempts;
		}

		public Map<String, String> threads() {
			return this.threads;
		}

		@RedisStreamListener(id = "points", stream = "rs-it-orders-${it.run}", group = "rs-it-points-${it.run}")
		@Idempotent(key = "#order.orderId()")
		public void onOrder(Order order) {
			this.attempts.merge(order.orderId(), 1, Integer::sum);
			if (order.orderId().startsWith("poison")) {
				throw new IllegalStateException("poison order " + order.orderId());
			}
			if (order.orderId().equals("fail-once") && this.failedOnce.add(order.orderId())) {
				throw new IllegalStateException("failing once");
			}
			credit(order);
		}

		@RedisStreamListener(id = "race", stream = "rs-it-race-${it.run}", group = "rs-it-race-${it.run}",
				concurrency = "2")
		@Idempotent(key = "#order.orderId()")
		public void onRace(Order order) throws InterruptedException {
			credit(order);
			Thread.sleep(150);
		}

		@RedisStreamListener(id = "ids", stream = "rs-it-ids-${it.run}", group = "rs-it-ids-${it.run}")
		@Idempotent
		public void onIds(Order order) {
			credit(order);
		}

		@RedisStreamListener(id = "escaped-ids", stream = "rs-it-escaped-${it.run}", group = "rs-it-escaped-${it.run}")
		@Idempotent
		public void onEscapedIds(Order order) {
			credit(order);
		}

		@RedisStreamListener(id = "claim", stream = "rs-it-claim-${it.run}", group = "rs-it-claim-${it.run}",
				consumer = "rs-it-claimer-${it.run}")
		@Idempotent(key = "#order.orderId()")
		public void onClaim(Order order) {
			credit(order);
		}

		private void credit(Order order) {
			this.threads.put(order.orderId(), Thread.currentThread().getName());
			this.jdbc.update("INSERT INTO redis_stream_it_ledger (order_id, points) VALUES (?, ?)", order.orderId(),
					order.points());
		}

	}

}
