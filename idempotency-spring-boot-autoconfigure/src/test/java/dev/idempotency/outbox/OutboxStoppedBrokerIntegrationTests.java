package dev.idempotency.outbox;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.TraceContextCapture;
import dev.idempotency.outbox.jdbc.JdbcOutbox;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.outbox.kafka.KafkaOutboxSender;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestKafkaBrokers;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.backoff.ExponentialBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real broker outage under a running relay, on PostgreSQL: the in-process Kafka broker is shut
 * down (its listener closes, as a crashed or partitioned broker's does) and started again on the
 * same port with its logs, while the relay keeps sending through an ordinary {@code KafkaTemplate}.
 * {@code AbstractOutboxRelayIntegrationTests} covers the same path with a sender that fails on
 * demand; this test proves that the producer's own timeouts lead there too.
 */
class OutboxStoppedBrokerIntegrationTests {

	private static final List<String> KEYS = List.of("a", "b", "c");

	private EmbeddedKafkaKraftBroker broker;

	private BrokerServer brokerServer;

	private KafkaTemplate<String, String> kafka;

	/** Closed by the test: a template leaves a factory it was given open. */
	private DefaultKafkaProducerFactory<String, String> producers;

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	private JdbcOutboxRepository repository;

	private Outbox outbox;

	private OutboxRelay relay;

	private final AtomicInteger sendFailures = new AtomicInteger();

	@BeforeEach
	void startBrokerAndDatabase() throws IOException {
		this.broker = TestKafkaBrokers
			.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1).kafkaPorts(freePort()));
		this.broker.afterPropertiesSet();
		this.brokerServer = this.broker.getCluster().brokers().values().iterator().next();
		this.producers = new DefaultKafkaProducerFactory<>(Map.of(
				ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(), ProducerConfig.ACKS_CONFIG,
				"all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.LINGER_MS_CONFIG, 5,
				// Fail fast while the broker is away, so that attempts (not one long send) are measured.
				ProducerConfig.MAX_BLOCK_MS_CONFIG, 2000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1000,
				ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 3000, ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500),
				new StringSerializer(), new StringSerializer());
		this.kafka = new KafkaTemplate<>(this.producers);
		this.dataSource = TestDatabases.postgres();
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/outbox/schema-drop-postgresql.sql"),
				new ClassPathResource("dev/idempotency/outbox/schema-postgresql.sql"))
			.execute(this.dataSource);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		this.repository = new JdbcOutboxRepository(this.dataSource, OutboxDialect.detect(this.dataSource),
				"idempotency_outbox", JsonMapper.shared(), Clock.systemUTC());
		this.outbox = new JdbcOutbox(this.repository, JsonMapper.shared(), () -> {
		}, TraceContextCapture.NONE);
		ExponentialBackOff backOff = new ExponentialBackOff(100, 2.0);
		backOff.setMaxInterval(1000);
		backOff.setJitter(20);
		this.relay = new OutboxRelay(this.repository, () -> List.of(new KafkaOutboxSender(this.kafka)),
				new OutboxRelay.Options(Duration.ofMillis(20), 20, Duration.ofMinutes(1), Duration.ofSeconds(5), 1000,
						backOff, true, OutboxRelay.Options.DEFAULT_MAX_IN_FLIGHT_BATCHES),
				Clock.systemUTC(), () -> List.of(new OutboxListener() {

					@Override
					public void onOutboxSendFailed(String destination, Throwable cause) {
						OutboxStoppedBrokerIntegrationTests.this.sendFailures.incrementAndGet();
					}

				}), new DefaultFailureClassifier());
	}

	@AfterEach
	void stopEverything() {
		this.relay.stop();
		this.kafka.destroy();
		// Its producer would go on reconnecting to this broker's port, which a later test may listen on.
		this.producers.destroy();
		this.broker.destroy();
		this.dataSource.close();
	}

	@Test
	void stoppedBrokerGrowsTheBacklogBacksOffLosesNothingAndDrainsInOrderWhenItIsBack() {
		String topic = "outbox-stopped-broker-" + UUID.randomUUID();
		this.broker.addTopics(new NewTopic(topic, 2, (short) 1));
		Map<String, List<String>> published = new LinkedHashMap<>();
		this.relay.start();
		publish(topic, 0, 5, published);
		await().atMost(30, TimeUnit.SECONDS).until(() -> sentRows() == 15);

		this.brokerServer.shutdown();
		this.brokerServer.awaitShutdown();
		publish(topic, 5, 35, published);
		// The head of each key is retried with growing pauses; nothing behind it goes out of turn, and
		// an unreachable broker is not the message's fault: no attempt is counted.
		await().atMost(60, TimeUnit.SECONDS).until(() -> this.sendFailures.get() >= 3 * KEYS.size());
		assertThat(headAttempts("a")).isZero();
		assertThat(sentRows()).isEqualTo(15);
		assertThat(this.repository.snapshot().pending()).isEqualTo(90);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'DEAD'",
				Integer.class)).isZero();

		this.brokerServer.startup();
		await().atMost(90, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200)).until(() -> sentRows() == 105);
		List<ConsumerRecord<String, String>> records = OutboxTestSenders.readTopic(this.broker.getBrokersAsString(),
				topic, 105, Duration.ofSeconds(30));
		Map<String, List<String>> received = new LinkedHashMap<>();
		records.forEach((record) -> {
			List<String> values = received.computeIfAbsent(record.key(), (k) -> new ArrayList<>());
			// A send whose acknowledgement was lost is sent again, right after itself: the consumer's
			// dedup absorbs it by its message id. Order and completeness are what must hold.
			if (values.isEmpty() || !values.get(values.size() - 1).equals(record.value())) {
				values.add(record.value());
			}
		});
		assertThat(received).isEqualTo(published);
		assertThat(new HashSet<>(records.stream().map(OutboxTestSenders::messageId).toList())).hasSize(105);
	}

	private void publish(String topic, int from, int to, Map<String, List<String>> published) {
		for (int i = from; i < to; i++) {
			int n = i;
			this.transactions.executeWithoutResult((status) -> {
				for (String key : KEYS) {
					this.outbox.publish("kafka:" + topic, key, key + "-" + n);
					published.computeIfAbsent(key, (k) -> new ArrayList<>()).add(key + "-" + n);
				}
			});
		}
	}

	private int headAttempts(String key) {
		Integer attempts = this.jdbc.queryForObject("SELECT attempts FROM idempotency_outbox WHERE id = "
				+ "(SELECT MIN(id) FROM idempotency_outbox WHERE message_key = ? AND status <> 'SENT')", Integer.class,
				key);
		return (attempts != null) ? attempts : 0;
	}

	private int sentRows() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'", Integer.class);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
