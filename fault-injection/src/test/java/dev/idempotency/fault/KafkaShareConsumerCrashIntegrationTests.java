package dev.idempotency.fault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 30: a share-group consumer JVM ({@link FaultShareConsumerApplication}) is SIGKILLed after the
 * database commit and before the ACCEPT, and a second one is started. The killed consumer's record
 * stays acquired until its acquisition lock (5 s on this broker) expires; the broker then hands it to
 * the second consumer with the next delivery count, which finds its key committed, accepts it as a
 * duplicate, and each order is credited exactly once. On an in-process KRaft broker with share groups
 * on.
 */
class KafkaShareConsumerCrashIntegrationTests {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

	private static final int ORDERS = 10;

	private static final int KILL_AT = 5;

	private final String runId = "share-" + UUID.randomUUID().toString().substring(0, 8);

	private final String topic = "share-crash-" + this.runId;

	private final String group = this.topic + "-points";

	private final Path directory = FaultCluster.runDirectory(this.runId);

	private EmbeddedKafkaKraftBroker broker;

	private FaultDatabase database;

	@BeforeEach
	void start() throws Exception {
		this.broker = new EmbeddedKafkaKraftBroker(1, 1);
		this.broker.brokerProperties(Map.of("group.share.enable", "true", "group.share.min.record.lock.duration.ms",
				"1000", "group.share.record.lock.duration.ms", "5000", "share.coordinator.state.topic.num.partitions",
				"1", "share.coordinator.state.topic.replication.factor", "1", "share.coordinator.state.topic.min.isr",
				"1", "offsets.topic.num.partitions", "1", "auto.create.topics.enable", "false"));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic(this.topic, 1, (short) 1));
		try (Admin admin = Admin.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()))) {
			ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, this.group);
			admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
					new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
				.all()
				.get(30, TimeUnit.SECONDS);
		}
		this.database = new FaultDatabase(this.runId);
	}

	@AfterEach
	void stop() {
		ChildConsumer.destroyAll();
		try {
			// The listener's default namespace is <group>:<listener id>; the listener id alone is what a
			// record that reached the listener without the delivery context was stored under.
			this.database.deleteRunData(Set.of(this.group, "fault-share-orders"));
			this.database.close();
		}
		finally {
			this.broker.destroy();
		}
	}

	@Test
	void consumerKilledAfterTheDatabaseCommitAndBeforeTheAcceptCreditsEachOrderOnce() throws Exception {
		String o = this.runId + "-o";
		try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
				Map.of("bootstrap.servers", this.broker.getBrokersAsString(), "acks", "all"), new StringSerializer(),
				new ByteArraySerializer())) {
			for (int i = 1; i <= ORDERS; i++) {
				producer.send(new ProducerRecord<>(this.topic, 0, o + i, FaultCluster.json(o + i, "u-" + (i % 3), i)))
					.get(30, TimeUnit.SECONDS);
			}
		}

		// 1. The first consumer accepts o1..o4, commits o5 in the database and stops before the
		// ACCEPT (one record acquired per poll: o6..o10 are still available).
		String first = this.runId + "-1";
		Map<String, String> properties = properties(first);
		properties.put("fault.kill-point", "after-commit");
		properties.put("fault.kill-at", String.valueOf(KILL_AT));
		ChildConsumer consumer = ChildConsumer.start(FaultShareConsumerApplication.class, first, this.directory,
				"explicit", properties);
		String point = consumer.awaitLine(0, (line) -> line.startsWith("POINT after-commit"), START_TIMEOUT);
		assertThat(point).as("%s stopped at the after-commit point", consumer).isNotNull();
		assertThat(point).contains("key=" + o + 5, "partition=0", "offset=4");
		assertThat(this.database.creditedBy(o + 5)).as("o5 is committed in the database").containsExactly(first);

		// 2. SIGKILL: nobody accepts o5; its acquisition lock expires.
		assertThat(consumer.kill()).as("exit status of a SIGKILLed JVM").isEqualTo(ChildConsumer.SIGKILL_EXIT);

		// 3. A second consumer of the group: o5 comes back and is a duplicate; o6..o10 are processed.
		String second = this.runId + "-2";
		ChildConsumer restarted = ChildConsumer.start(FaultShareConsumerApplication.class, second, this.directory,
				"explicit", properties(second));
		await().atMost(START_TIMEOUT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> this.database.distinctOrdersCredited(o) >= ORDERS
					&& Journal.read(second, restarted.journal()).outcomes.stream()
						.anyMatch((outcome) -> outcome.key().equals(o + 5)));
		// Every record the second consumer received has its outcome before it stops.
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> Journal.read(second, restarted.journal()).inFlight() == 0);
		assertThat(restarted.stop()).as("clean shutdown").isEqualTo(ChildConsumer.SIGTERM_EXIT);

		Map<String, Integer> credits = this.database.creditsPerOrder(o);
		assertThat(credits).hasSize(ORDERS).allSatisfy((order, count) -> assertThat(count).as(order).isEqualTo(1));
		assertThat(this.database.creditedBy(o + 5)).containsExactly(first);

		// The killed consumer: o1..o4 processed, o5 received last and in flight (no outcome). On a slow
		// machine a lock may also expire before an ACCEPT: that record comes back and is a duplicate.
		Journal killed = Journal.read(first, consumer.journal());
		assertThat(killed.received).extracting(Journal.Received::orderId)
			.containsSubsequence(o + 1, o + 2, o + 3, o + 4, o + 5)
			.last()
			.isEqualTo(o + 5);
		assertThat(killed.outcomes).filteredOn((outcome) -> outcome.outcome().equals("processed"))
			.extracting(Journal.Outcome::key)
			.containsExactly(o + 1, o + 2, o + 3, o + 4);
		assertThat(killed.outcomes).filteredOn((outcome) -> !outcome.outcome().equals("processed"))
			.allSatisfy((outcome) -> assertThat(outcome.outcome()).isEqualTo("duplicate"));
		assertThat(killed.inFlight()).isEqualTo(1);
		assertThat(killed.cleanShutdown).isFalse();

		// The second consumer: o5 a duplicate, o6..o10 processed. (An ACCEPT of o1..o4 travels with the
		// poll that acquired the next record, so none of them should come back; if one did, it too
		// would be a duplicate.)
		Journal after = Journal.read(second, restarted.journal());
		assertThat(after.outcomes).filteredOn((outcome) -> outcome.outcome().equals("processed"))
			.extracting(Journal.Outcome::key)
			.containsExactly(o + 6, o + 7, o + 8, o + 9, o + 10);
		assertThat(after.outcomes).filteredOn((outcome) -> !outcome.outcome().equals("processed"))
			.extracting((outcome) -> outcome.outcome() + " " + outcome.key())
			.contains("duplicate " + o + 5)
			.allSatisfy((outcome) -> assertThat(outcome).startsWith("duplicate " + o));
		assertThat(after.cleanShutdown).isTrue();
		String metrics = restarted.findLine(0, (line) -> line.startsWith("METRICS"));
		assertThat(metrics).as("the second consumer's idempotency.invocations timer")
			.contains("processed=5", "failed=0", "rejected=0");
		System.out.printf("[share crash] killed %s at %s (exit %d); second %s: %s; ledger: %d orders, once each%n",
				first, point, consumer.exitStatus(), second, metrics, credits.size());
	}

	private Map<String, String> properties(String name) {
		Map<String, String> properties = this.database.consumerProperties(name);
		properties.put("spring.kafka.bootstrap-servers", this.broker.getBrokersAsString());
		properties.put("fault.topic", this.topic);
		properties.put("fault.group", this.group);
		properties.put("fault.max-lifetime-seconds", "600");
		return properties;
	}

}
