package dev.idempotency.kafka.share;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.idempotency.kafka.share.ShareGroupApplication.Ledger;
import dev.idempotency.kafka.share.ShareGroupApplication.OrderListener;
import dev.idempotency.kafka.share.ShareGroupApplication.Settlements;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestKafkaBrokers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} on share-group {@code @KafkaListener}s (KIP-932), on a dedicated in-process
 * KRaft broker with share groups on, a 2 s acquisition lock and a delivery-attempt limit of 3, and
 * the JDBC store in Spring Boot's default configuration, reached through a {@link TcpProxy} so that
 * an outage can be injected. A second application, with lock renewal off, shares the broker and
 * the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractKafkaShareGroupIntegrationTests {

	/** The broker's {@code group.share.delivery.count.limit}: not Kafka's default of 5. */
	private static final int BROKER_ATTEMPT_LIMIT = 3;

	private static final Pattern URL = Pattern.compile("(jdbc:[a-z]+://)([^:/]+)(?::(\\d+))?(/.*)");

	private final String run = UUID.randomUUID().toString().substring(0, 8);

	private final String runWithoutRenewal = this.run + "n";

	private EmbeddedKafkaKraftBroker broker;

	private TcpProxy database;

	private ConfigurableApplicationContext context;

	private ConfigurableApplicationContext withoutRenewal;

	private KafkaProducer<String, String> producer;

	private final List<ConsumerRecord<String, String>> deadLetters = new CopyOnWriteArrayList<>();

	private KafkaConsumer<String, String> deadLetterReader;

	/**
	 * The database's Spring Boot properties: {@code spring.datasource.url} first.
	 * @return the properties
	 */
	abstract String[] databaseProperties();

	/**
	 * Driver parameters that make a cut connection fail within seconds.
	 * @return the URL parameters, without the leading separator
	 */
	abstract String shortTimeouts();

	@BeforeAll
	void start() throws Exception {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1));
		this.broker.brokerProperties(Map.of("group.share.enable", "true", "group.share.min.record.lock.duration.ms",
				"1000", "group.share.record.lock.duration.ms", "2000", "group.share.delivery.count.limit",
				String.valueOf(BROKER_ATTEMPT_LIMIT), "share.coordinator.state.topic.num.partitions", "1",
				"share.coordinator.state.topic.replication.factor", "1", "share.coordinator.state.topic.min.isr", "1"));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic(ShareGroupApplication.ORDERS, 1, (short) 1),
				new NewTopic(ShareGroupApplication.ORDERS + ".DLT", 1, (short) 1),
				new NewTopic(ShareGroupApplication.SLOW, 1, (short) 1),
				new NewTopic(ShareGroupApplication.SLOW_WITHOUT_RENEWAL, 1, (short) 1),
				new NewTopic(ShareGroupApplication.CRASH, 1, (short) 1));
		String servers = this.broker.getBrokersAsString();
		try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
			Map<ConfigResource, java.util.Collection<AlterConfigOp>> earliest = new java.util.HashMap<>();
			for (String group : List.of("share-orders-" + this.run, "share-slow-" + this.run,
					"share-crash-" + this.run, "share-slow-" + this.runWithoutRenewal)) {
				earliest.put(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(new AlterConfigOp(
						new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)));
			}
			admin.incrementalAlterConfigs(earliest).all().get(30, TimeUnit.SECONDS);
		}
		String[] database = databaseProperties();
		Matcher url = URL.matcher(database[0].substring("spring.datasource.url=".length()));
		assertThat(url.matches()).as("database URL %s", database[0]).isTrue();
		this.database = TcpProxy.start(url.group(2),
				Integer.parseInt((url.group(3) != null) ? url.group(3) : defaultPort()));
		String proxied = url.group(1) + "127.0.0.1:" + this.database.port() + url.group(4)
				+ (url.group(4).contains("?") ? "&" : "?") + shortTimeouts();
		this.context = application(proxied, database[1], this.run);
		this.withoutRenewal = application(proxied, database[1], this.runWithoutRenewal,
				"idempotency.kafka.share.renew=false", "it.orders.enabled=false", "it.crash.enabled=false",
				"it.slow-topic=" + ShareGroupApplication.SLOW_WITHOUT_RENEWAL);
		this.producer = new KafkaProducer<>(Map.of("bootstrap.servers", servers), new StringSerializer(),
				new StringSerializer());
		this.deadLetterReader = new KafkaConsumer<>(Map.of("bootstrap.servers", servers),
				new StringDeserializer(), new StringDeserializer());
		TopicPartition dlt = new TopicPartition(ShareGroupApplication.ORDERS + ".DLT", 0);
		this.deadLetterReader.assign(List.of(dlt));
		this.deadLetterReader.seekToBeginning(List.of(dlt));
	}

	private String defaultPort() {
		return databaseProperties()[0].contains(":postgresql:") ? "5432" : "3306";
	}

	private ConfigurableApplicationContext application(String url, String username, String run,
			String... extra) {
		List<String> properties = new ArrayList<>(List.of("spring.datasource.url=" + url, username,
				"spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.validation-timeout=500",
				"spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(), "it.run=" + run,
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.fail-closed.probe-interval=500ms", "spring.kafka.producer.value-serializer=" + ShareGroupApplication.BytesOrStringSerializer.class.getName()));
		properties.addAll(List.of(extra));
		return new SpringApplicationBuilder(ShareGroupApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	@AfterAll
	void stop() {
		this.database.restore();
		Ledger ledger = this.context.getBean(Ledger.class);
		ledger.drop();
		this.withoutRenewal.getBean(Ledger.class).drop();
		ledger.jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE ? OR namespace LIKE ?",
				"%-" + this.run + ":%", "%-" + this.runWithoutRenewal + ":%");
		this.withoutRenewal.close();
		this.context.close();
		this.producer.close();
		this.deadLetterReader.close();
		this.database.close();
		this.broker.destroy();
	}

	@Test
	void fourConsumersOnOnePartitionApplyEachOrderOnceDespiteDuplicates() {
		int orders = 150;
		for (int i = 0; i < orders; i++) {
			send(ShareGroupApplication.ORDERS, "dup-" + i + ":10");
			if (i % 5 == 0) {
				send(ShareGroupApplication.ORDERS, "dup-" + i + ":10");
			}
		}
		Ledger ledger = this.context.getBean(Ledger.class);
		await().atMost(60, TimeUnit.SECONDS)
			.until(() -> ledger.rowsLike("dup-") == orders && invocations("share-orders", "duplicate") >= orders / 5);
		assertThat(ledger.ordersAppliedMoreThanOnce("dup-")).isZero();
		assertThat(deadLettered("dup-")).isEmpty();
	}

	@Test
	void poisonIsDeadLetteredAndRejectedAtTheBrokersLastAttempt() {
		send(ShareGroupApplication.ORDERS, "poison-1:1");
		await().atMost(60, TimeUnit.SECONDS).until(() -> !deadLettered("poison-1").isEmpty());
		Ledger ledger = this.context.getBean(Ledger.class);
		// The broker's limit (3), read at start-up, not Kafka's default (5)
		assertThat(ledger.deliveries.get("poison-1")).containsExactlyInAnyOrder(1, 2, 3);
		assertThat(deadLettered("poison-1")).hasSize(1);
		Settlements settlements = this.context.getBean(Settlements.class);
		// The rejection is counted once the dead-letter publish returned, which the test may see first.
		await().atMost(10, TimeUnit.SECONDS)
			.untilAsserted(() -> assertThat(settlements.count(group("orders"), "reject", "attempts-exhausted"))
				.isEqualTo(1));
		assertThat(settlements.count(group("orders"), "release", "failed")).isEqualTo(BROKER_ATTEMPT_LIMIT - 1);
	}

	@Test
	void badInputIsDeadLetteredAndRejectedAtOnce() {
		send(ShareGroupApplication.ORDERS, "nokey-1:1");
		send(ShareGroupApplication.ORDERS, "garbage-1");
		await().atMost(60, TimeUnit.SECONDS)
			.until(() -> !deadLettered("nokey-1").isEmpty() && !deadLettered("garbage-1").isEmpty());
		Settlements settlements = this.context.getBean(Settlements.class);
		// Each rejection is counted once its dead-letter publish returned, which the test may see first.
		await().atMost(10, TimeUnit.SECONDS)
			.untilAsserted(() -> assertThat(settlements.count(group("orders"), "reject", "bad-input")).isEqualTo(2));
		assertThat(deadLettered("nokey-1")).hasSize(1);
		assertThat(deadLettered("garbage-1")).hasSize(1);
		assertThat(this.context.getBean(Ledger.class).deliveries).doesNotContainKeys("nokey-1", "garbage-1");
	}

	@Test
	void methodSlowerThanTheLockRenewsItAndIsAppliedOnce() {
		send(ShareGroupApplication.SLOW, "slow-renewed");
		Ledger ledger = this.context.getBean(Ledger.class);
		Settlements settlements = this.context.getBean(Settlements.class);
		await().atMost(60, TimeUnit.SECONDS)
			.until(() -> settlements.count(group("slow"), "accept") >= 1 && ledger.rows("slow-renewed") == 1);
		// The lock was renewed while the 5 s method ran (a 2 s lock): no other consumer ran it meanwhile
		assertThat(settlements.count(group("slow"), "renew", "long-running")).isGreaterThanOrEqualTo(2);
		assertThat(ledger.deliveries.get("slow-renewed")).containsExactly(1);
		// With the Kafka 4.2 client the ACCEPT after a RENEW may be refused (KAFKA-20458): the record
		// then comes back and is skipped as a duplicate, never applied twice
		await().during(Duration.ofSeconds(3))
			.atMost(15, TimeUnit.SECONDS)
			.until(() -> ledger.rows("slow-renewed") == 1 && ledger.runs("slow-renewed") == 1
					&& invocations(this.context, "share-slow", "processed") == 1);
	}

	@Test
	void methodSlowerThanTheLockWithoutRenewalIsRedeliveredAndSkippedAsADuplicate() {
		send(ShareGroupApplication.SLOW_WITHOUT_RENEWAL, "slow-expired");
		Ledger ledger = this.withoutRenewal.getBean(Ledger.class);
		await().atMost(60, TimeUnit.SECONDS)
			.until(() -> invocations(this.withoutRenewal, "share-slow", "duplicate") >= 1);
		assertThat(ledger.rows("slow-expired")).isEqualTo(1);
		assertThat(ledger.runs("slow-expired")).isEqualTo(1);
		assertThat(invocations(this.withoutRenewal, "share-slow", "processed")).isEqualTo(1);
	}

	@Test
	void consumerClosedAfterTheCommitBeforeTheAcceptLeavesTheRecordToAnotherWhichSkipsIt() {
		this.context.getBean(OrderListener.class).crashAfterCommit("crash-1");
		send(ShareGroupApplication.CRASH, "crash-1");
		Ledger ledger = this.context.getBean(Ledger.class);
		await().atMost(60, TimeUnit.SECONDS).until(() -> invocations(this.context, "share-crash", "duplicate") >= 1);
		assertThat(ledger.rows("crash-1")).isEqualTo(1);
		assertThat(ledger.runs("crash-1")).isEqualTo(1);
	}

	@Test
	void storeOutagePausesFetchingAndResumesWithNoValidRecordDeadLettered() throws Exception {
		int orders = 60;
		Ledger ledger = this.context.getBean(Ledger.class);
		Settlements settlements = this.context.getBean(Settlements.class);
		int pausesBefore = settlements.pauses.get();
		for (int i = 0; i < orders / 3; i++) {
			send(ShareGroupApplication.ORDERS, "outage-" + i + ":1");
		}
		await().atMost(60, TimeUnit.SECONDS).until(() -> ledger.rowsLike("outage-") == orders / 3);
		this.database.cut();
		try {
			for (int i = orders / 3; i < orders; i++) {
				send(ShareGroupApplication.ORDERS, "outage-" + i + ":1");
			}
			await().atMost(30, TimeUnit.SECONDS).until(() -> settlements.pauses.get() > pausesBefore);
		}
		finally {
			this.database.restore();
		}
		// The ledger is read through the same cut connection pool: a read that hit the outage fails once.
		await().atMost(90, TimeUnit.SECONDS).ignoreExceptions().until(() -> ledger.rowsLike("outage-") == orders);
		assertThat(ledger.ordersAppliedMoreThanOnce("outage-")).isZero();
		assertThat(deadLettered("outage-")).isEmpty();
		assertThat(settlements.count(group("orders"), "release", "outage")).isPositive();
		await().atMost(30, TimeUnit.SECONDS).until(() -> settlements.resumes.get() > 0);
	}

	private String group(String listener) {
		return "share-" + listener + "-" + this.run;
	}

	private void send(String topic, String value) {
		try {
			this.producer.send(new ProducerRecord<>(topic, value)).get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private List<ConsumerRecord<String, String>> deadLettered(String prefix) {
		synchronized (this.deadLetterReader) {
			this.deadLetterReader.poll(Duration.ofMillis(50)).forEach(this.deadLetters::add);
		}
		return this.deadLetters.stream()
			.filter((record) -> record.value() != null && record.value().startsWith(prefix))
			.toList();
	}

	private long invocations(String listener, String outcome) {
		return invocations(this.context, listener, outcome);
	}

	private static long invocations(ConfigurableApplicationContext context, String listener, String outcome) {
		return context.getBean(MeterRegistry.class)
			.find("idempotency.invocations")
			.tag("outcome", outcome)
			.timers()
			.stream()
			.filter((timer) -> String.valueOf(timer.getId().getTag("namespace")).endsWith(":" + listener))
			.mapToLong(Timer::count)
			.sum();
	}

}
