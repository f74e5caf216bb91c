package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.idempotency.kafka.FailClosedKafkaApplication.Commits;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestKafkaBrokers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.awaitility.Awaitility.await;

/**
 * An in-process KRaft broker, the {@link FailClosedKafkaApplication} and PostgreSQL reached
 * through a {@link TcpProxy}, with short timeouts (Hikari {@code connection-timeout} 1 s, pgJDBC
 * {@code socketTimeout} 5 s) and a 500 ms probe interval, so that an outage is quick to inject
 * and quick to notice.
 */
final class FailClosedKafkaFixture implements AutoCloseable {

	/** Distinct orders per outage run; every tenth is also sent twice by the producer. */
	static final int ORDERS = 200;

	private static final Pattern POSTGRES_URL = Pattern.compile("jdbc:postgresql://([^:/]+)(?::(\\d+))?/(.+)");

	private final EmbeddedKafkaKraftBroker broker;

	/** One for the fixture: an await may ask for the dead letters every few milliseconds. */
	private final AdminClient admin;

	final TcpProxy database;

	final ConfigurableApplicationContext context;

	final JdbcTemplate jdbc;

	final KafkaTemplate<String, String> kafka;

	final Commits commits;

	@SuppressWarnings("unchecked")
	private FailClosedKafkaFixture(String... extraProperties) {
		Matcher url = POSTGRES_URL.matcher(TestDatabases.postgresUrl());
		if (!url.matches()) {
			throw new IllegalStateException("Not a PostgreSQL URL: " + TestDatabases.postgresUrl());
		}
		this.database = TcpProxy.start(url.group(1), (url.group(2) != null) ? Integer.parseInt(url.group(2)) : 5432);
		String database = url.group(3);
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 4));
		// One broker: with Kafka transactions on, the transaction state log cannot have three replicas.
		this.broker.brokerProperties(
				Map.of("transaction.state.log.replication.factor", "1", "transaction.state.log.min.isr", "1"));
		this.broker.afterPropertiesSet();
		for (String topic : List.of(FailClosedKafkaApplication.RECORDS, FailClosedKafkaApplication.BATCH,
				FailClosedKafkaApplication.ROLLBACK_ONLY)) {
			this.broker.addTopics(new NewTopic(topic, 4, (short) 1), new NewTopic(topic + ".DLT", 1, (short) 1));
		}
		this.broker.addTopics(new NewTopic(FailClosedKafkaApplication.POISON, 1, (short) 1),
				new NewTopic(FailClosedKafkaApplication.POISON + ".DLT", 1, (short) 1));
		this.admin = AdminClient.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()));
		List<String> properties = new ArrayList<>(List.of(
				"spring.datasource.url=jdbc:postgresql://127.0.0.1:" + this.database.port() + "/" + database
						+ (database.contains("?") ? "&" : "?") + "socketTimeout=5&connectTimeout=2",
				TestDatabases.postgresProperties()[1], "spring.datasource.hikari.connection-timeout=1000",
				"spring.datasource.hikari.validation-timeout=500",
				"spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.max-poll-records=10",
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.kafka.retry.initial-interval=20ms", "idempotency.kafka.retry.max-interval=50ms",
				"idempotency.fail-closed.probe-interval=500ms"));
		properties.addAll(List.of(extraProperties));
		this.context = new SpringApplicationBuilder(FailClosedKafkaApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.kafka = this.context.getBean(KafkaTemplate.class);
		this.commits = this.context.getBean(Commits.class);
	}

	static FailClosedKafkaFixture start(String... extraProperties) {
		return new FailClosedKafkaFixture(extraProperties);
	}

	/**
	 * Sends {@link #ORDERS} orders (with producer duplicates) to a listener's topic, cuts the
	 * database once a third of them are credited, restores it after {@code outage}, and waits for
	 * the next credit.
	 * @param listener the listener, also its topic
	 * @param outage how long the database stays cut
	 * @return the time from the restore to the listener's next commit
	 */
	Duration sendOrdersThroughAnOutage(String listener, Duration outage) throws InterruptedException {
		send((operations) -> {
			for (int i = 0; i < ORDERS; i++) {
				String order = listener + "-" + i;
				operations.send(listener, order, order + ":1");
				if (i % 10 == 0) {
					operations.send(listener, order, order + ":1");
				}
			}
		});
		await().atMost(60, TimeUnit.SECONDS)
			.pollInterval(Duration.ofMillis(2))
			.until(() -> this.commits.credits(listener) >= ORDERS / 3);
		this.database.cut();
		long restoredAt;
		try {
			Thread.sleep(outage.toMillis());
		}
		finally {
			restoredAt = System.nanoTime();
			this.database.restore();
		}
		await().atMost(60, TimeUnit.SECONDS).until(() -> this.commits.firstCommitSince(listener, restoredAt) >= 0);
		Duration resumed = Duration.ofNanos(this.commits.firstCommitSince(listener, restoredAt) - restoredAt);
		System.out.println("[fail-closed] " + listener + ": credits before the restore "
				+ this.commits.credits(listener) + ", first commit " + resumed.toMillis() + " ms after the restore");
		return resumed;
	}

	/**
	 * Sends records, in one Kafka transaction when the template is transactional (Kafka
	 * transactions on), and waits until they are sent.
	 * @param sends the sends
	 */
	void send(Consumer<KafkaOperations<String, String>> sends) {
		if (this.kafka.isTransactional()) {
			// The commit sends them.
			this.kafka.executeInTransaction((operations) -> {
				sends.accept(operations);
				return null;
			});
		}
		else {
			sends.accept(this.kafka);
			this.kafka.flush();
		}
	}

	int ledgerCount(String listener) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM kafka_fc_ledger WHERE listener = ?", Integer.class,
				listener);
	}

	List<String> creditedMoreThanOnce(String listener) {
		return this.jdbc.queryForList("SELECT order_id FROM kafka_fc_ledger WHERE listener = ? GROUP BY order_id "
				+ "HAVING COUNT(*) > 1", String.class, listener);
	}

	/** Records on {@code <topic>.DLT}, from its end offsets. */
	long deadLetterCount(String topic) throws Exception {
		TopicPartition partition = new TopicPartition(topic + ".DLT", 0);
		return this.admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
			.partitionResult(partition)
			.get(10, TimeUnit.SECONDS)
			.offset();
	}

	/** The values on {@code <topic>.DLT}, read until {@code expected} are there or 30 s passed. */
	List<String> deadLetters(String topic, int expected) {
		List<String> values = new ArrayList<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(),
						ConsumerConfig.GROUP_ID_CONFIG, "fc-dlt-reader-" + System.nanoTime(),
						ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
				new StringDeserializer(), new StringDeserializer())) {
			consumer.subscribe(List.of(topic + ".DLT"));
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (values.size() < expected && System.nanoTime() < deadline) {
				consumer.poll(Duration.ofMillis(500)).forEach((record) -> values.add(record.value()));
			}
		}
		return values;
	}

	/** The {@value IdempotencyMeters#LISTENER_PAUSES} counter of a listener, 0 if never paused. */
	double pauses(String listener) {
		Counter counter = registry().find(IdempotencyMeters.LISTENER_PAUSES)
			.tag(IdempotencyMeters.LISTENER_TAG, listener)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	/** The {@value IdempotencyMeters#LISTENER_PAUSED} gauge of a listener, -1 if never registered. */
	double paused(String listener) {
		Gauge gauge = registry().find(IdempotencyMeters.LISTENER_PAUSED)
			.tag(IdempotencyMeters.LISTENER_TAG, listener)
			.gauge();
		return (gauge != null) ? gauge.value() : -1;
	}

	double deadLettered(String topic) {
		return registry().find(IdempotencyMeters.DEAD_LETTERED)
			.counters()
			.stream()
			.filter((counter) -> counter.getId().getTags().stream().anyMatch((tag) -> tag.getValue().equals(topic)))
			.mapToDouble(Counter::count)
			.sum();
	}

	private MeterRegistry registry() {
		return this.context.getBean(MeterRegistry.class);
	}

	@Override
	public void close() {
		this.admin.close();
		this.context.close();
		this.broker.destroy();
		this.database.close();
	}

}
