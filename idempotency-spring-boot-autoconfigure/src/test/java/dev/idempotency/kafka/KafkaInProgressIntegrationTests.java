package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.testsupport.TestKafkaBrokers;
import dev.idempotency.testsupport.TestRedisConnections;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
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
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.kafka.test.utils.ContainerTestUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A leased store (Redis) on Kafka, a key whose lease is held by an instance that crashed: the record
 * is "in progress", which is not its fault. It must wait until the lease has expired and then run
 * once, without spending its attempts and without reaching the dead-letter topic (it used to be
 * dead-lettered after three attempts in well under a second). Record and batch listeners; a 2-second
 * lease, many times what the three attempts take.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaInProgressIntegrationTests {

	private static final String PREFIX = TestRedisConnections.uniqueKeyPrefix(KafkaInProgressIntegrationTests.class);

	private static final Duration LEASE = Duration.ofSeconds(2);

	private static final Map<String, AtomicInteger> APPLIED = new ConcurrentHashMap<>();

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic("ip-records", 1, (short) 1), new NewTopic("ip-records.DLT", 1, (short) 1),
				new NewTopic("ip-batches", 1, (short) 1), new NewTopic("ip-batches.DLT", 1, (short) 1));
		this.context = new SpringApplicationBuilder(InProgressApplication.class).web(WebApplicationType.NONE)
			.properties(TestRedisConnections.properties())
			.properties("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
					"spring.kafka.consumer.auto-offset-reset=earliest", "idempotency.store.type=redis",
					"idempotency.redis.key-prefix=" + PREFIX, "idempotency.kafka.retry.initial-interval=20ms",
					"idempotency.kafka.retry.max-interval=50ms", "spring.autoconfigure.exclude="
							+ "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
			.run();
		// The lease is taken once the consumers are assigned, so that it is still held when they poll.
		KafkaListenerEndpointRegistry registry = this.context.getBean(KafkaListenerEndpointRegistry.class);
		ContainerTestUtils.waitForAssignment(registry.getListenerContainer("ip-records"), 1);
		ContainerTestUtils.waitForAssignment(registry.getListenerContainer("ip-batches"), 1);
	}

	@AfterAll
	void stop() {
		this.context.close();
		this.broker.destroy();
		LettuceConnectionFactory connectionFactory = TestRedisConnections.connectionFactory();
		try {
			TestRedisConnections.deleteKeys(connectionFactory, PREFIX);
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void recordWhoseKeyIsHeldByACrashedInstanceWaitsForTheLeaseAndRunsOnce() throws Exception {
		holdLeaseAsACrashedInstance("ip-records", "held-r");
		long started = System.nanoTime();
		send("ip-records", "held-r");
		send("ip-records", "after-r");
		await().atMost(30, TimeUnit.SECONDS).until(() -> applied("held-r") == 1 && applied("after-r") == 1);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(LEASE.minusMillis(500));
		assertThat(meter("ip-records", "in_progress")).isGreaterThanOrEqualTo(3);
		Thread.sleep(500);
		assertThat(deadLetters("ip-records.DLT")).isZero();
		assertThat(applied("held-r")).isEqualTo(1);
	}

	@Test
	void batchWithAKeyHeldByACrashedInstanceWaitsForTheLeaseAndEveryMessageRunsOnce() throws Exception {
		holdLeaseAsACrashedInstance("ip-batches", "held-b");
		KafkaTemplate<String, String> kafka = this.context.getBean(KafkaTemplate.class);
		for (String value : List.of("b-1", "held-b", "b-2")) {
			kafka.send("ip-batches", value, value);
		}
		kafka.flush();
		await().atMost(30, TimeUnit.SECONDS)
			.until(() -> applied("b-1") == 1 && applied("held-b") == 1 && applied("b-2") == 1);
		assertThat(meter("ip-batches", "in_progress")).isGreaterThanOrEqualTo(1);
		Thread.sleep(500);
		assertThat(deadLetters("ip-batches.DLT")).isZero();
		assertThat(List.of(applied("b-1"), applied("held-b"), applied("b-2"))).containsOnly(1);
	}

	/** Claims the key with a lease and never completes it, as an instance killed mid-work leaves it. */
	private void holdLeaseAsACrashedInstance(String namespace, String key) {
		IdempotencyStore store = this.context.getBean(IdempotencyStore.class);
		assertThat(store.claim(new IdempotencyKey(namespace, key), LEASE, Duration.ofDays(1)).isClaimed()).isTrue();
	}

	private void send(String topic, String value) throws Exception {
		this.context.getBean(KafkaTemplate.class).send(topic, value, value).get(10, TimeUnit.SECONDS);
	}

	private static int applied(String key) {
		AtomicInteger count = APPLIED.get(key);
		return (count != null) ? count.get() : 0;
	}

	private long meter(String namespace, String outcome) {
		return this.context.getBean(MeterRegistry.class)
			.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, namespace)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	/**
	 * Records on a dead-letter topic (one partition), from its end offset: the recoverer waits until
	 * a dead letter is written before the listener goes on, so no read has to wait for one.
	 */
	private long deadLetters(String topic) throws Exception {
		TopicPartition partition = new TopicPartition(topic, 0);
		try (AdminClient admin = AdminClient.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()))) {
			return admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
				.partitionResult(partition)
				.get(10, TimeUnit.SECONDS)
				.offset();
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class InProgressApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		LeasedListeners leasedListeners() {
			return new LeasedListeners();
		}

	}

	static class LeasedListeners {

		@KafkaListener(id = "ip-records", topics = "ip-records", groupId = "ip-records")
		@Idempotent(key = "#payload", namespace = "ip-records", lease = "2s")
		public void onRecord(String payload) {
			APPLIED.computeIfAbsent(payload, (key) -> new AtomicInteger()).incrementAndGet();
		}

		@KafkaListener(id = "ip-batches", topics = "ip-batches", groupId = "ip-batches", batch = "true")
		@Idempotent(key = "#element", namespace = "ip-batches", lease = "2s")
		public void onBatch(List<String> payloads) {
			payloads.forEach((payload) -> APPLIED.computeIfAbsent(payload, (key) -> new AtomicInteger()).incrementAndGet());
		}

	}

}
