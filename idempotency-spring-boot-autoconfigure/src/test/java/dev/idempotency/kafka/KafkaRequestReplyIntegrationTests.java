package dev.idempotency.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestKafkaBrokers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.messaging.handler.annotation.SendTo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Request/reply with {@code @KafkaListener} and {@code @SendTo}: a redelivered request gets the same
 * reply again from the result stored with its key ({@code onDuplicate = RETURN_PREVIOUS}), while its
 * business effect happens once; a request that reuses a key with another payload is a conflict,
 * dead-lettered at once and answered by no reply. On an in-process KRaft broker and the real
 * PostgreSQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaRequestReplyIntegrationTests {

	private EmbeddedKafkaKraftBroker broker;

	private ConfigurableApplicationContext context;

	private JdbcTemplate jdbc;

	private KafkaTemplate<String, String> kafka;

	@BeforeAll
	void start() {
		this.broker = TestKafkaBrokers.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1));
		this.broker.afterPropertiesSet();
		this.broker.addTopics(new NewTopic("quote-requests", 2, (short) 1),
				new NewTopic("quote-requests.DLT", 1, (short) 1), new NewTopic("quote-replies", 1, (short) 1));
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(),
				"spring.kafka.consumer.auto-offset-reset=earliest", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.kafka.retry.initial-interval=20ms",
				"idempotency.kafka.retry.max-interval=50ms"));
		this.context = new SpringApplicationBuilder(RequestReplyApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = this.context.getBean(JdbcTemplate.class);
		this.kafka = this.context.getBean(KafkaTemplate.class);
	}

	@AfterAll
	void stop() {
		this.context.close();
		this.broker.destroy();
	}

	@Test
	void redeliveredRequestGetsAnIdenticalReplyAndItsEffectHappensOnce() throws Exception {
		send("q-1:100");
		await().atMost(30, TimeUnit.SECONDS).until(() -> meter("processed") >= 1);
		send("q-1:100");
		List<String> replies = consume("quote-replies", (value) -> value.startsWith("quote q-1 "), 2);
		assertThat(replies).hasSize(2);
		assertThat(replies.get(1)).isEqualTo(replies.get(0)).matches("quote q-1 for 100 #\\d+");
		assertThat(ledgerCount("q-1")).isOne();
		assertThat(meter("duplicate")).isOne();
	}

	@Test
	void requestThatReusesAKeyWithAnotherPayloadIsDeadLetteredAsAConflictWithoutAReply() throws Exception {
		send("q-2:100");
		await().atMost(30, TimeUnit.SECONDS).until(() -> ledgerCount("q-2") == 1);
		send("q-2:999");
		assertThat(consume("quote-requests.DLT", "q-2:999"::equals, 1)).containsExactly("q-2:999");
		await().atMost(10, TimeUnit.SECONDS).until(() -> meter("conflict") == 1);
		// The conflicting request is dead-lettered: a reply to it would have been sent before its
		// dead letter, so it is there to be read with the first one (and the last poll of consume()).
		assertThat(consume("quote-replies", (value) -> value.startsWith("quote q-2 "), 1)).singleElement()
			.asString()
			.startsWith("quote q-2 for 100 #");
		assertThat(ledgerCount("q-2")).isOne();
	}

	private void send(String value) throws Exception {
		this.kafka.send("quote-requests", value.split(":")[0], value).get(10, TimeUnit.SECONDS);
	}

	private int ledgerCount(String id) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM kafka_rr_ledger WHERE quote_id = ?", Integer.class, id);
	}

	private long meter(String outcome) {
		return this.context.getBean(MeterRegistry.class)
			.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, "quotes")
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	/** Reads a topic from the start until {@code expected} values match or a few quiet seconds pass. */
	private List<String> consume(String topic, Predicate<String> matching, int expected) {
		List<String> found = new ArrayList<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(),
						ConsumerConfig.GROUP_ID_CONFIG, "reader-" + System.nanoTime(),
						ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
				new StringDeserializer(), new StringDeserializer())) {
			consumer.subscribe(List.of(topic));
			long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
			while (found.size() < expected && System.nanoTime() < deadline) {
				for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
					if (matching.test(record.value())) {
						found.add(record.value());
					}
				}
			}
			// A reply too many would arrive now.
			consumer.poll(Duration.ofSeconds(1)).forEach((record) -> {
				if (matching.test(record.value())) {
					found.add(record.value());
				}
			});
		}
		return found;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RequestReplyApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		QuoteListener quoteListener(JdbcTemplate jdbc) {
			jdbc.execute("DROP TABLE IF EXISTS kafka_rr_ledger");
			jdbc.execute("CREATE TABLE kafka_rr_ledger (quote_id VARCHAR(64) NOT NULL, amount INT NOT NULL)");
			jdbc.update("DELETE FROM idempotency_record WHERE namespace = 'quotes'");
			return new QuoteListener(jdbc);
		}

	}

	static class QuoteListener {

		private final JdbcTemplate jdbc;

		private final AtomicInteger quotes = new AtomicInteger();

		QuoteListener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@KafkaListener(id = "quotes", topics = "quote-requests", groupId = "quotes")
		@SendTo("quote-replies")
		@Idempotent(key = "#payload.split(':')[0]", namespace = "quotes", fingerprint = "#payload",
				onDuplicate = OnDuplicate.RETURN_PREVIOUS)
		public String quote(String payload) {
			String[] parts = payload.split(":");
			this.jdbc.update("INSERT INTO kafka_rr_ledger (quote_id, amount) VALUES (?, ?)", parts[0],
					Integer.parseInt(parts[1]));
			// The number tells a reply computed again from the one stored.
			return "quote " + parts[0] + " for " + parts[1] + " #" + this.quotes.incrementAndGet();
		}

	}

}
