package dev.idempotency.outbox;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.TraceContextCapture;
import dev.idempotency.outbox.OutboxTestSenders.FlakySender;
import dev.idempotency.outbox.OutboxTestSenders.HoldingSender;
import dev.idempotency.outbox.jdbc.JdbcOutbox;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.outbox.kafka.KafkaOutboxSender;
import dev.idempotency.outbox.redis.RedisStreamOutboxSender;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.testsupport.TestKafkaBrokers;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.backoff.ExponentialBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The outbox on one real database, with an in-process Kafka broker and the local Redis: publish
 * iff commit, two relays sharing a backlog, a broker outage, a late-committing lower id, per-key
 * ordering with a failing key, overlapping batches (with held acknowledgements, and with a failed
 * send under per-key ordering), dead rows and re-drive, purge, and the Redis Stream sender.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractOutboxRelayIntegrationTests {

	private EmbeddedKafkaKraftBroker broker;

	private KafkaTemplate<String, String> kafka;

	/** Closed by the test: a template leaves a factory it was given open. */
	private DefaultKafkaProducerFactory<String, String> producers;

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	private JdbcOutboxRepository repository;

	private Outbox outbox;

	private LettuceConnectionFactory redisConnectionFactory;

	private StringRedisTemplate redis;

	private final List<OutboxRelay> started = new ArrayList<>();

	private final AtomicInteger dead = new AtomicInteger();

	protected abstract HikariDataSource createDataSource();

	protected abstract String platform();

	protected abstract OutboxDialect expectedDialect();

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 3));
		this.broker.afterPropertiesSet();
		this.producers = new DefaultKafkaProducerFactory<>(Map.of(
				ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(), ProducerConfig.ACKS_CONFIG,
				"all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.LINGER_MS_CONFIG, 5),
				new StringSerializer(), new StringSerializer());
		this.kafka = new KafkaTemplate<>(this.producers);
		this.dataSource = createDataSource();
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/outbox/schema-drop-" + platform() + ".sql"),
				new ClassPathResource("dev/idempotency/outbox/schema-" + platform() + ".sql"))
			.execute(this.dataSource);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		this.repository = new JdbcOutboxRepository(this.dataSource, OutboxDialect.detect(this.dataSource),
				"idempotency_outbox", JsonMapper.shared(), Clock.systemUTC());
		this.outbox = new JdbcOutbox(this.repository, JsonMapper.shared(), () -> {
		}, TraceContextCapture.NONE);
		this.redisConnectionFactory = new LettuceConnectionFactory("127.0.0.1", 6379);
		this.redisConnectionFactory.afterPropertiesSet();
		this.redisConnectionFactory.start();
		this.redis = new StringRedisTemplate(this.redisConnectionFactory);
	}

	@AfterAll
	void stop() {
		this.started.forEach(OutboxRelay::stop);
		this.kafka.destroy();
		// Its producer would go on reconnecting to this broker's port, which a later test may listen on.
		this.producers.destroy();
		this.broker.destroy();
		this.dataSource.close();
		this.redisConnectionFactory.destroy();
	}

	protected HikariDataSource dataSource() {
		return this.dataSource;
	}

	protected JdbcTemplate jdbc() {
		return this.jdbc;
	}

	@BeforeEach
	void emptyTable() {
		this.started.forEach(OutboxRelay::stop);
		this.started.clear();
		this.jdbc.update("DELETE FROM idempotency_outbox");
		this.dead.set(0);
	}

	@Test
	void dialectIsDetectedFromTheDatabase() {
		assertThat(this.repository.getDialect()).isEqualTo(expectedDialect());
	}

	@Test
	void publishOutsideATransactionIsRefused() {
		assertThatExceptionOfType(IllegalTransactionStateException.class)
			.isThrownBy(() -> this.outbox.publish("kafka:none", "k", "payload"))
			.withMessageContaining("no transaction is active");
		assertThat(rows()).isZero();
	}

	@Test
	void rolledBackTransactionPublishesNothingAndCommittedOnePublishesExactlyOne() {
		String topic = topic(1);
		this.transactions.executeWithoutResult((status) -> {
			this.outbox.publish("kafka:" + topic, "order-1", new OrderPlaced("order-1", 10));
			status.setRollbackOnly();
		});
		String committed = this.transactions
			.execute((status) -> this.outbox.publish("kafka:" + topic, "order-2", new OrderPlaced("order-2", 20),
					Map.of("trace-id", "t-2")));
		OutboxRelay relay = relay(false, 3, new KafkaOutboxSender(this.kafka));
		relay.drain();

		List<ConsumerRecord<String, String>> records = OutboxTestSenders.readTopic(brokers(), topic, 1,
				Duration.ofSeconds(20));
		assertThat(records).singleElement().satisfies((record) -> {
			assertThat(OutboxTestSenders.messageId(record)).isEqualTo(committed);
			assertThat(record.key()).isEqualTo("order-2");
			assertThat(record.value()).isEqualTo("{\"orderId\":\"order-2\",\"points\":20}");
			assertThat(new String(record.headers().lastHeader("trace-id").value())).isEqualTo("t-2");
		});
		assertThat(this.repository.find(committed).status()).isEqualTo(OutboxStatus.SENT);
		assertThat(rows()).isOne();
	}

	@Test
	void twoRelaysShareFiveThousandRowsAndSendEachOnce() {
		String topic = topic(3);
		int total = 5000;
		for (int batch = 0; batch < total / 250; batch++) {
			int first = batch * 250;
			this.transactions.executeWithoutResult((status) -> {
				for (int i = first; i < first + 250; i++) {
					this.outbox.publish("kafka:" + topic, "key-" + (i % 50), "m-" + i);
				}
			});
		}
		// A lease far longer than the test: no row may be sent twice.
		FlakySender first = new FlakySender(new KafkaOutboxSender(this.kafka));
		FlakySender second = new FlakySender(new KafkaOutboxSender(this.kafka));
		start(relay(false, 50, Duration.ofMinutes(10), 10, first));
		start(relay(false, 50, Duration.ofMinutes(10), 10, second));

		await().atMost(90, TimeUnit.SECONDS).until(() -> this.repository.snapshot().pending() == 0);
		List<ConsumerRecord<String, String>> records = OutboxTestSenders.readTopic(brokers(), topic, total,
				Duration.ofSeconds(60));
		Map<String, Long> perMessageId = records.stream()
			.collect(Collectors.groupingBy(OutboxTestSenders::messageId, Collectors.counting()));
		assertThat(perMessageId).hasSize(total);
		assertThat(perMessageId.values()).allMatch((count) -> count == 1);
		assertThat(records).hasSize(total);
		assertThat(first.sent.get() + second.sent.get()).isEqualTo(total);
		assertThat(first.sent.get()).as("first relay's share").isPositive();
		assertThat(second.sent.get()).as("second relay's share").isPositive();
		assertThat(sentRows()).isEqualTo(total);
	}

	@Test
	void brokerOutageGrowsTheBacklogBacksOffLosesNothingAndDrainsInOrder() {
		String topic = topic(3);
		FlakySender sender = new FlakySender(new KafkaOutboxSender(this.kafka));
		sender.failing = (message) -> true;
		start(relay(true, 20, Duration.ofMinutes(1), 1000, sender));
		Map<String, List<String>> published = new LinkedHashMap<>();
		for (int i = 0; i < 30; i++) {
			int n = i;
			this.transactions.executeWithoutResult((status) -> {
				for (String key : List.of("a", "b", "c")) {
					this.outbox.publish("kafka:" + topic, key, key + "-" + n);
					published.computeIfAbsent(key, (k) -> new ArrayList<>()).add(key + "-" + n);
				}
			});
		}
		await().atMost(20, TimeUnit.SECONDS)
			.until(() -> this.jdbc.queryForObject("SELECT MIN(attempts) FROM idempotency_outbox WHERE message_key = 'a' "
					+ "AND id = (SELECT MIN(id) FROM idempotency_outbox WHERE message_key = 'a')", Integer.class) >= 3);
		assertThat(this.repository.snapshot().pending()).isEqualTo(90);
		assertThat(this.repository.snapshot().oldestPendingAge()).isPositive();
		// Ordered per key: only the head of each key was tried, and its attempts were spaced out.
		assertThat(sender.attemptsPerMessage).hasSize(3);
		int triesDuringOutage = sender.failed.get();
		assertThat(triesDuringOutage).as("back-off keeps retries rare").isLessThan(3 * 15);

		sender.failing = (message) -> false;
		await().atMost(60, TimeUnit.SECONDS).until(() -> sentRows() == 90);
		List<ConsumerRecord<String, String>> records = OutboxTestSenders.readTopic(brokers(), topic, 90,
				Duration.ofSeconds(30));
		Map<String, List<String>> received = new HashMap<>();
		records.forEach((record) -> received.computeIfAbsent(record.key(), (k) -> new ArrayList<>()).add(record.value()));
		assertThat(received).isEqualTo(published);
	}

	@Test
	void transactionThatTookALowerIdAndCommitsAfterAHigherOneIsStillPublished() throws Exception {
		String topic = topic(1);
		CountDownLatch inserted = new CountDownLatch(1);
		CountDownLatch commit = new CountDownLatch(1);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<String> slow = executor.submit(() -> this.transactions.execute((status) -> {
				String id = this.outbox.publish("kafka:" + topic, "slow", "slow");
				inserted.countDown();
				await().atMost(30, TimeUnit.SECONDS).until(() -> commit.getCount() == 0);
				return id;
			}));
			assertThat(inserted.await(10, TimeUnit.SECONDS)).isTrue();
			String fast = this.transactions.execute((status) -> this.outbox.publish("kafka:" + topic, "fast", "fast"));
			OutboxRelay relay = relay(false, 10, new KafkaOutboxSender(this.kafka));
			relay.drain();
			assertThat(this.repository.find(fast).status()).isEqualTo(OutboxStatus.SENT);
			commit.countDown();
			String slowId = slow.get(30, TimeUnit.SECONDS);
			assertThat(this.repository.find(slowId).id()).isLessThan(this.repository.find(fast).id());
			relay.drain();
			assertThat(this.repository.find(slowId).status()).isEqualTo(OutboxStatus.SENT);
			assertThat(OutboxTestSenders.readTopic(brokers(), topic, 2, Duration.ofSeconds(20)))
				.extracting(ConsumerRecord::value)
				.containsExactly("fast", "slow");
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void failingKeyBlocksOnlyItselfGoesDeadAfterMaxAttemptsAndIsRedriven() {
		String topic = topic(2);
		FlakySender sender = new FlakySender(new KafkaOutboxSender(this.kafka));
		sender.failing = (message) -> "bad".equals(message.key());
		OutboxRelay relay = relay(true, 10, Duration.ofMinutes(1), 3, sender);
		String badHead = publish(topic, "bad", "bad-1");
		String badNext = publish(topic, "bad", "bad-2");
		for (int i = 1; i <= 5; i++) {
			publish(topic, "good", "good-" + i);
		}
		await().atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20)).until(() -> {
			relay.drain();
			return this.repository.find(badHead).status() == OutboxStatus.DEAD && sentRows() == 5;
		});
		OutboxMessage deadRow = this.repository.find(badHead);
		assertThat(deadRow.attempts()).isEqualTo(3);
		assertThat(deadRow.lastError()).contains("broker unavailable (test)");
		assertThat(this.dead.get()).isOne();
		OutboxMessage blocked = this.repository.find(badNext);
		assertThat(blocked.status()).isEqualTo(OutboxStatus.PENDING);
		assertThat(blocked.attempts()).isZero();
		assertThat(sender.attemptsPerMessage).doesNotContainKey(badNext);
		OutboxAdmin admin = new OutboxAdmin(this.repository);
		assertThat(admin.findDead(10)).extracting(OutboxMessage::messageId).containsExactly(badHead);
		assertThat(admin.backlog().dead()).isOne();

		sender.failing = (message) -> false;
		relay.drain();
		assertThat(this.repository.find(badNext).status()).as("still behind its dead head").isEqualTo(OutboxStatus.PENDING);
		assertThat(admin.redriveDead()).isOne();
		await().atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20)).until(() -> {
			relay.drain();
			return sentRows() == 7;
		});
		List<String> bad = OutboxTestSenders.readTopic(brokers(), topic, 7, Duration.ofSeconds(20))
			.stream()
			.filter((record) -> "bad".equals(record.key()))
			.map(ConsumerRecord::value)
			.toList();
		assertThat(bad).containsExactly("bad-1", "bad-2");
	}

	@Test
	void nextBatchIsClaimedAndSentWhileThePreviousBatchAwaitsItsAcknowledgements() throws Exception {
		String topic = topic(2);
		Map<String, List<String>> published = new LinkedHashMap<>();
		for (int i = 0; i < 30; i++) {
			String key = "key-" + (i % 4);
			publish(topic, key, "m-" + i);
			published.computeIfAbsent(key, (k) -> new ArrayList<>()).add("m-" + i);
		}
		HoldingSender sender = new HoldingSender(new KafkaOutboxSender(this.kafka));
		OutboxRelay relay = relay(false, 10, Duration.ofMinutes(1), 10, 2, sender);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Integer> drained = executor.submit(relay::drain);
			// Batch 2 claimed and sent while not one acknowledgement of batch 1 came back.
			await().atMost(20, TimeUnit.SECONDS).until(() -> sender.sends.get() == 20);
			Thread.sleep(300);
			assertThat(sender.sends.get()).as("at most two batches in flight").isEqualTo(20);
			assertThat(sender.events).allMatch((event) -> event.startsWith("send:"));
			assertThat(sentRows()).as("nothing marked sent before its acknowledgement").isZero();
			// Both batches keep their leases: another relay finds only the 10 rows not claimed yet.
			Object now = this.repository.getDialect().timestamp(java.time.Instant.now());
			assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'PENDING' "
					+ "AND claimed_until > ?", Integer.class, now)).isEqualTo(20);
			assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'PENDING' "
					+ "AND claimed_until IS NULL", Integer.class)).isEqualTo(10);

			sender.release();
			assertThat(drained.get(30, TimeUnit.SECONDS)).isEqualTo(30);
		}
		finally {
			sender.release();
			executor.shutdownNow();
		}
		assertThat(sentRows()).isEqualTo(30);
		List<ConsumerRecord<String, String>> records = OutboxTestSenders.readTopic(brokers(), topic, 30,
				Duration.ofSeconds(20));
		assertThat(records).hasSize(30);
		Map<String, List<String>> received = new HashMap<>();
		records.forEach((record) -> received.computeIfAbsent(record.key(), (k) -> new ArrayList<>()).add(record.value()));
		assertThat(received).as("each key in publish order across overlapping batches").isEqualTo(published);
	}

	@Test
	void rowCommittedWhileABatchAwaitsItsAcknowledgementsIsSentWithoutWaitingForThem() {
		String topic = topic(2);
		HoldingSender sender = new HoldingSender(new KafkaOutboxSender(this.kafka));
		// Polls once an hour: only a commit on this instance can start a claim.
		OutboxRelay relay = relay(false, 10, Duration.ofMinutes(1), 10, 3, Duration.ofHours(1), sender);
		Outbox waking = new JdbcOutbox(this.repository, JsonMapper.shared(), relay::wakeUp, TraceContextCapture.NONE);
		start(relay);
		try {
			this.transactions.execute((status) -> waking.publish("kafka:" + topic, "key-1", "first"));
			await().atMost(10, TimeUnit.SECONDS).until(() -> sender.sends.get() == 1);
			this.transactions.execute((status) -> waking.publish("kafka:" + topic, "key-2", "second"));
			// The first batch's acknowledgement is held for the whole send timeout (10 s): the second
			// row is claimed and sent beside it, not after it.
			await().atMost(5, TimeUnit.SECONDS).until(() -> sender.sends.get() == 2);
			assertThat(sender.events).containsExactly("send:first", "send:second");
			assertThat(sentRows()).as("nothing marked sent before its acknowledgement").isZero();
			sender.release();
			await().atMost(20, TimeUnit.SECONDS).until(() -> sentRows() == 2);
		}
		finally {
			sender.release();
		}
		assertThat(OutboxTestSenders.readTopic(brokers(), topic, 2, Duration.ofSeconds(20))).hasSize(2);
	}

	@Test
	void orderedPerKeyKeepsLaterRowsBackWhileAnEarlierOneIsInFlightAndFailsUnderTheOverlap() throws Exception {
		String topic = topic(2);
		List<String> keys = List.of("a", "b", "c", "d");
		for (int n = 1; n <= 3; n++) {
			for (String key : keys) {
				publish(topic, key, key + "-" + n);
			}
		}
		HoldingSender sender = new HoldingSender(new KafkaOutboxSender(this.kafka));
		sender.failFirstSend = (message) -> "a-1".equals(message.payload());
		OutboxRelay relay = relay(true, 2, Duration.ofMinutes(1), 10, 2, sender);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Integer> drained = executor.submit(relay::drain);
			await().atMost(20, TimeUnit.SECONDS).until(() -> sender.sends.get() == 4);
			Thread.sleep(300);
			// Two batches in flight (a-1, b-1 and c-1, d-1), no later row of a key behind them.
			assertThat(sender.events).containsExactly("send:a-1", "send:b-1", "send:c-1", "send:d-1");
			sender.release();
			drained.get(30, TimeUnit.SECONDS);
		}
		finally {
			sender.release();
			executor.shutdownNow();
		}
		await().atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20)).until(() -> {
			relay.drain();
			return sentRows() == 12;
		});
		assertThat(sender.events).contains("fail:a-1");
		// Each row of a key is sent only after the earlier row of that key was acknowledged.
		List<String> events = List.copyOf(sender.events);
		for (String key : keys) {
			for (int n = 2; n <= 3; n++) {
				int firstSend = events.indexOf("send:" + key + "-" + n);
				int earlierAck = events.indexOf("ack:" + key + "-" + (n - 1));
				assertThat(earlierAck).as(key + "-" + (n - 1) + " acknowledged").isNotNegative();
				assertThat(firstSend).as(key + "-" + n + " sent after " + key + "-" + (n - 1) + " was acknowledged")
					.isGreaterThan(earlierAck);
			}
		}
		Map<String, List<String>> received = new HashMap<>();
		OutboxTestSenders.readTopic(brokers(), topic, 12, Duration.ofSeconds(20))
			.forEach((record) -> received.computeIfAbsent(record.key(), (k) -> new ArrayList<>()).add(record.value()));
		for (String key : keys) {
			assertThat(received.get(key)).containsExactly(key + "-1", key + "-2", key + "-3");
		}
	}

	@Test
	void destinationWithoutASenderIsDeadAtOnce() {
		OutboxRelay relay = relay(false, 10, new KafkaOutboxSender(this.kafka), new RedisStreamOutboxSender(this.redis));
		String id = publish("nowhere", "k", "p");
		relay.drain();
		OutboxMessage row = this.repository.find(id);
		assertThat(row.status()).isEqualTo(OutboxStatus.DEAD);
		assertThat(row.lastError()).contains("No OutboxSender serves destination 'nowhere'");
	}

	@Test
	void purgeDeletesOnlySentRowsOlderThanTheRetention() {
		for (int i = 0; i < 5; i++) {
			publish("kafka:purge", "old-sent", "p");
		}
		publish("kafka:purge", "recent-sent", "p");
		publish("kafka:purge", "old-pending", "p");
		publish("kafka:purge", "old-dead", "p");
		Object old = this.repository.getDialect().timestamp(java.time.Instant.now().minus(Duration.ofHours(2)));
		Object recent = this.repository.getDialect().timestamp(java.time.Instant.now().minus(Duration.ofMinutes(5)));
		this.jdbc.update("UPDATE idempotency_outbox SET status = 'SENT', sent_at = ? WHERE message_key = 'old-sent'", old);
		this.jdbc.update("UPDATE idempotency_outbox SET status = 'SENT', sent_at = ? WHERE message_key = 'recent-sent'",
				recent);
		this.jdbc.update("UPDATE idempotency_outbox SET created_at = ? WHERE message_key = 'old-pending'", old);
		this.jdbc.update("UPDATE idempotency_outbox SET status = 'DEAD', created_at = ? WHERE message_key = 'old-dead'",
				old);

		assertThat(this.repository.purgeSent(Duration.ofHours(1), 2, 10)).isEqualTo(5);
		assertThat(this.jdbc.queryForList("SELECT message_key FROM idempotency_outbox ORDER BY id", String.class))
			.containsExactly("recent-sent", "old-pending", "old-dead");
	}

	@Test
	void redisStreamSenderAddsTheMessageIdAndPayloadFields() {
		String stream = "outbox-it-" + UUID.randomUUID();
		try {
			OutboxRelay relay = relay(false, 10, new KafkaOutboxSender(this.kafka),
					new RedisStreamOutboxSender(this.redis));
			String id = this.transactions.execute((status) -> this.outbox.publish("redis:" + stream, "order-7",
					new OrderPlaced("order-7", 70), Map.of("trace-id", "t-7")));
			relay.drain();
			List<MapRecord<String, Object, Object>> entries = this.redis.opsForStream()
				.read(StreamOffset.fromStart(stream));
			assertThat(entries).singleElement().satisfies((entry) -> assertThat(entry.getValue())
				.containsEntry("message-id", id)
				.containsEntry("payload", "{\"orderId\":\"order-7\",\"points\":70}")
				.containsEntry("key", "order-7")
				.containsEntry("trace-id", "t-7"));
			assertThat(this.repository.find(id).status()).isEqualTo(OutboxStatus.SENT);
		}
		finally {
			this.redis.delete(stream);
		}
	}

	private String publish(String topic, String key, String payload) {
		String destination = topic.contains(":") || topic.equals("nowhere") ? topic : "kafka:" + topic;
		return this.transactions.execute((status) -> this.outbox.publish(destination, key, payload));
	}

	private String topic(int partitions) {
		String name = "outbox-" + platform() + "-" + UUID.randomUUID().toString().substring(0, 8);
		this.broker.addTopics(new NewTopic(name, partitions, (short) 1));
		return name;
	}

	private OutboxRelay relay(boolean ordered, int batchSize, OutboxSender... senders) {
		return relay(ordered, batchSize, Duration.ofMinutes(1), 10, senders);
	}

	private OutboxRelay relay(boolean ordered, int batchSize, Duration lease, int maxAttempts,
			OutboxSender... senders) {
		return relay(ordered, batchSize, lease, maxAttempts, OutboxRelay.Options.DEFAULT_MAX_IN_FLIGHT_BATCHES,
				senders);
	}

	private OutboxRelay relay(boolean ordered, int batchSize, Duration lease, int maxAttempts, int maxInFlightBatches,
			OutboxSender... senders) {
		return relay(ordered, batchSize, lease, maxAttempts, maxInFlightBatches, Duration.ofMillis(20), senders);
	}

	private OutboxRelay relay(boolean ordered, int batchSize, Duration lease, int maxAttempts, int maxInFlightBatches,
			Duration pollInterval, OutboxSender... senders) {
		ExponentialBackOff backOff = new ExponentialBackOff(50, 2.0);
		backOff.setMaxInterval(400);
		backOff.setJitter(10);
		OutboxRelay.Options options = new OutboxRelay.Options(pollInterval, batchSize, lease,
				Duration.ofSeconds(10), maxAttempts, backOff, ordered, maxInFlightBatches);
		OutboxListener listener = new OutboxListener() {

			@Override
			public void onOutboxDead(String destination, String messageId, Throwable cause) {
				AbstractOutboxRelayIntegrationTests.this.dead.incrementAndGet();
			}

		};
		return new OutboxRelay(this.repository, () -> List.of(senders), options, Clock.systemUTC(),
				() -> List.of(listener), new DefaultFailureClassifier());
	}

	private void start(OutboxRelay relay) {
		this.started.add(relay);
		relay.start();
	}

	private String brokers() {
		return this.broker.getBrokersAsString();
	}

	private int rows() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox", Integer.class);
	}

	private int sentRows() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'", Integer.class);
	}

	record OrderPlaced(String orderId, int points) {
	}

}
