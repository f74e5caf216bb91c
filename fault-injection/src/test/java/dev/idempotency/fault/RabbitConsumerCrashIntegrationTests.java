package dev.idempotency.fault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 29: a RabbitMQ consumer JVM ({@link FaultRabbitConsumerApplication}) is SIGKILLed after the
 * database commit and before the {@code basic.ack}, and restarted. The broker hands the unacknowledged
 * message back; the restarted consumer finds its key committed, acknowledges it as a duplicate, and
 * each order is credited exactly once. On the local broker (127.0.0.1:5672, guest/guest), a quorum
 * queue of a random name, deleted afterwards.
 */
class RabbitConsumerCrashIntegrationTests {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private static final int ORDERS = 10;

	private static final int KILL_AT = 5;

	private final String runId = "rabbit-" + UUID.randomUUID().toString().substring(0, 8);

	private final String queue = "fault-orders-" + this.runId;

	private final Path directory = Path.of("target", "fault-injection", this.runId).toAbsolutePath();

	private FaultDatabase database;

	private CachingConnectionFactory connectionFactory;

	private RabbitAdmin admin;

	@BeforeEach
	void start() {
		this.database = new FaultDatabase(this.runId);
		this.connectionFactory = new CachingConnectionFactory("127.0.0.1", 5672);
		this.connectionFactory.setUsername("guest");
		this.connectionFactory.setPassword("guest");
		this.admin = new RabbitAdmin(this.connectionFactory);
		this.admin.declareQueue(QueueBuilder.durable(this.queue).quorum().build());
	}

	@AfterEach
	void stop() {
		ChildConsumer.destroyAll();
		try {
			this.admin.deleteQueue(this.queue);
			this.connectionFactory.destroy();
		}
		finally {
			this.database.deleteRunData(Set.of(this.queue));
			this.database.close();
		}
	}

	@Test
	void consumerKilledAfterTheDatabaseCommitAndBeforeTheAcknowledgementCreditsEachOrderOnce() {
		String o = this.runId + "-o";
		RabbitTemplate rabbit = new RabbitTemplate(this.connectionFactory);
		for (int i = 1; i <= ORDERS; i++) {
			MessageProperties properties = new MessageProperties();
			properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
			properties.setMessageId(o + i);
			rabbit.send("", this.queue, new Message(FaultCluster.json(o + i, "u-" + (i % 3), i), properties));
		}

		// 1. The first consumer processes o1..o4, commits o5 in the database and stops before its
		// basic.ack (prefetch 1: the messages after it are still in the queue).
		String first = this.runId + "-1";
		Map<String, String> properties = properties(first);
		properties.put("fault.kill-point", "after-commit");
		properties.put("fault.kill-at", String.valueOf(KILL_AT));
		ChildConsumer consumer = ChildConsumer.start(FaultRabbitConsumerApplication.class, first, this.directory,
				"manual", properties);
		String point = consumer.awaitLine(0, (line) -> line.startsWith("POINT after-commit"), START_TIMEOUT);
		assertThat(point).as("%s stopped at the after-commit point", consumer).isNotNull();
		assertThat(point).contains("key=" + o + 5);
		assertThat(this.database.creditedBy(o + 5)).as("o5 is committed in the database").containsExactly(first);
		assertThat(ready()).as("o6..o10 still in the queue, o5 delivered and not acknowledged").isEqualTo(5);

		// 2. SIGKILL: the broker takes o5 back.
		assertThat(consumer.kill()).as("exit status of a SIGKILLed JVM").isEqualTo(ChildConsumer.SIGKILL_EXIT);
		await().atMost(Duration.ofSeconds(30)).until(() -> ready() == 6);

		// 3. Restart: o5 comes back and is a duplicate; o6..o10 are processed.
		String second = this.runId + "-2";
		ChildConsumer restarted = ChildConsumer.start(FaultRabbitConsumerApplication.class, second, this.directory,
				"manual", properties(second));
		await().atMost(START_TIMEOUT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> this.database.distinctOrdersCredited(o) >= ORDERS && ready() == 0
					&& Journal.read(second, restarted.journal()).outcomes.size() == 6);
		assertThat(restarted.stop()).as("clean shutdown").isEqualTo(ChildConsumer.SIGTERM_EXIT);
		assertThat(ready()).as("nothing handed back at the shutdown: every message was acknowledged").isZero();

		Map<String, Integer> credits = this.database.creditsPerOrder(o);
		assertThat(credits).hasSize(ORDERS).allSatisfy((order, count) -> assertThat(count).as(order).isEqualTo(1));
		assertThat(this.database.creditedBy(o + 5)).containsExactly(first);

		Journal killed = Journal.read(first, consumer.journal());
		assertThat(killed.received).extracting(Journal.Received::orderId)
			.containsExactly(o + 1, o + 2, o + 3, o + 4, o + 5);
		assertThat(killed.outcomes).extracting(Journal.Outcome::outcome).containsOnly("processed").hasSize(4);
		assertThat(killed.inFlight()).isEqualTo(1);

		Journal after = Journal.read(second, restarted.journal());
		assertThat(after.outcomes).extracting((outcome) -> outcome.outcome() + " " + outcome.key())
			.containsExactly("duplicate " + o + 5, "processed " + o + 6, "processed " + o + 7, "processed " + o + 8,
					"processed " + o + 9, "processed " + o + 10);
		assertThat(after.cleanShutdown).isTrue();
		String metrics = restarted.findLine(0, (line) -> line.startsWith("METRICS"));
		assertThat(metrics).as("the restarted consumer's idempotency.invocations timer")
			.contains("processed=5", "duplicate=1", "failed=0", "rejected=0", "dead_lettered=0");
		System.out.printf("[rabbit crash] killed %s at %s (exit %d); restarted %s: %s; ledger: %d orders, once each%n",
				first, point, consumer.exitStatus(), second, metrics, credits.size());
	}

	private Map<String, String> properties(String name) {
		Map<String, String> properties = this.database.consumerProperties("fault-" + name);
		properties.put("spring.rabbitmq.host", "127.0.0.1");
		properties.put("spring.rabbitmq.port", "5672");
		properties.put("fault.queue", this.queue);
		return properties;
	}

	private int ready() {
		var info = this.admin.getQueueInfo(this.queue);
		return (info != null) ? (int) info.getMessageCount() : -1;
	}

}
