package dev.idempotency.outbox;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * A broker outage longer than the whole retry budget, on PostgreSQL with the real in-process broker:
 * with three attempts and back-offs of a tenth of a second, the budget is spent in about three
 * seconds, and the broker stays away for several times that. The producer's timeouts, disconnects
 * and the relay's own send timeout are the broker's fault, not the messages': no row may go
 * {@code DEAD} or even count an attempt, and every message arrives once the broker is back.
 */
class OutboxBrokerOutageIntegrationTests {

	private static final int MAX_ATTEMPTS = 3;

	private static final int MESSAGES = 60;

	private EmbeddedKafkaKraftBroker broker;

	private BrokerServer brokerServer;

	private KafkaTemplate<String, String> kafka;

	/** Closed by the test: a template leaves a factory it was given open. */
	private DefaultKafkaProducerFactory<String, String> producers;

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	private Outbox outbox;

	private OutboxRelay relay;

	private final AtomicInteger sendFailures = new AtomicInteger();

	private final AtomicInteger dead = new AtomicInteger();

	@BeforeEach
	void startBrokerAndDatabase() throws IOException {
		this.broker = TestKafkaBrokers
			.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1).kafkaPorts(freePort()));
		this.broker.afterPropertiesSet();
		this.brokerServer = this.broker.getCluster().brokers().values().iterator().next();
		this.producers = new DefaultKafkaProducerFactory<>(Map.of(
				ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(), ProducerConfig.ACKS_CONFIG,
				"all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.LINGER_MS_CONFIG, 5,
				ProducerConfig.MAX_BLOCK_MS_CONFIG, 1000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 500,
				ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 1000, ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200),
				new StringSerializer(), new StringSerializer());
		this.kafka = new KafkaTemplate<>(this.producers);
		this.dataSource = TestDatabases.postgres();
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/outbox/schema-drop-postgresql.sql"),
				new ClassPathResource("dev/idempotency/outbox/schema-postgresql.sql"))
			.execute(this.dataSource);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		JdbcOutboxRepository repository = new JdbcOutboxRepository(this.dataSource,
				OutboxDialect.detect(this.dataSource), "idempotency_outbox", JsonMapper.shared(), Clock.systemUTC());
		this.outbox = new JdbcOutbox(repository, JsonMapper.shared(), () -> {
		}, TraceContextCapture.NONE);
		// The whole budget: 3 attempts, 100 ms and 200 ms apart, each failing within about 1 s.
		ExponentialBackOff backOff = new ExponentialBackOff(100, 2.0);
		backOff.setMaxInterval(400);
		backOff.setJitter(10);
		OutboxListener listener = new OutboxListener() {

			@Override
			public void onOutboxSendFailed(String destination, Throwable cause) {
				OutboxBrokerOutageIntegrationTests.this.sendFailures.incrementAndGet();
			}

			@Override
			public void onOutboxDead(String destination, String messageId, Throwable cause) {
				OutboxBrokerOutageIntegrationTests.this.dead.incrementAndGet();
			}

		};
		this.relay = new OutboxRelay(repository, () -> List.of(new KafkaOutboxSender(this.kafka)),
				new OutboxRelay.Options(Duration.ofMillis(20), 20, Duration.ofSeconds(30), Duration.ofSeconds(2),
						MAX_ATTEMPTS, backOff, false, OutboxRelay.Options.DEFAULT_MAX_IN_FLIGHT_BATCHES),
				Clock.systemUTC(), () -> List.of(listener), new DefaultFailureClassifier());
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
	void brokerOutageLongerThanTheRetryBudgetKillsNothingAndEveryMessageArrivesWhenItIsBack() throws Exception {
		String topic = "outbox-outage-" + UUID.randomUUID();
		this.broker.addTopics(new NewTopic(topic, 2, (short) 1));
		this.relay.start();
		Set<String> published = new HashSet<>(publish(topic, 0, 10));
		await().atMost(30, TimeUnit.SECONDS).until(() -> rows("SENT") == 10);

		this.brokerServer.shutdown();
		this.brokerServer.awaitShutdown();
		long outageStarted = System.nanoTime();
		published.addAll(publish(topic, 10, MESSAGES));
		// Past the budget: as many failures as would have spent every row's attempts, and at least
		// several times the time they take (or a row went dead, which ends the wait at once).
		await().atMost(90, TimeUnit.SECONDS)
			.until(() -> rows("DEAD") > 0 || this.sendFailures.get() >= (MESSAGES - 10) * MAX_ATTEMPTS);
		Thread.sleep(Math.max(0, Duration.ofSeconds(12).toMillis()
				- TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outageStarted)));
		assertThat(rows("DEAD")).as("dead rows during the outage").isZero();
		assertThat(this.dead.get()).isZero();
		assertThat(this.jdbc.queryForObject("SELECT MAX(attempts) FROM idempotency_outbox", Integer.class))
			.as("attempts counted for outage failures")
			.isZero();
		assertThat(rows("PENDING")).isEqualTo(MESSAGES - 10);

		this.brokerServer.startup();
		await().atMost(90, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200)).until(() -> rows("SENT") == MESSAGES);
		assertThat(rows("DEAD")).isZero();
		Set<String> received = new HashSet<>();
		OutboxTestSenders.readTopic(this.broker.getBrokersAsString(), topic, MESSAGES, Duration.ofSeconds(30))
			.forEach((record) -> received.add(OutboxTestSenders.messageId(record)));
		assertThat(received).as("message ids the consumer saw").isEqualTo(published);
	}

	private List<String> publish(String topic, int from, int to) {
		return this.transactions.execute((status) -> {
			List<String> ids = new ArrayList<>();
			for (int i = from; i < to; i++) {
				ids.add(this.outbox.publish("kafka:" + topic, "key-" + (i % 7), "m-" + i));
			}
			return ids;
		});
	}

	private int rows(String status) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = ?", Integer.class,
				status);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
