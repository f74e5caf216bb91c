package dev.idempotency.test;

import java.util.UUID;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kit around an {@code @Idempotent @KafkaListener}, as a user's test would run it: the embedded
 * broker of spring-kafka-test, the JDBC store on the local PostgreSQL, the kit injected with
 * {@code @Autowired} and reset by {@code @IdempotencyTest}.
 */
@SpringBootTest(classes = KafkaListenerIntegrationTests.KafkaApplication.class,
		properties = { "spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}",
				"spring.kafka.consumer.auto-offset-reset=earliest", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false", "idempotency.kafka.retry.initial-interval=50ms",
				"idempotency.kafka.retry.max-interval=200ms", "idempotency.fail-closed.probe-interval=200ms" })
@EmbeddedKafka(partitions = 1, topics = KafkaListenerIntegrationTests.TOPIC)
@IdempotencyTest
class KafkaListenerIntegrationTests {

	static final String TOPIC = "kit-orders";

	private static Ledger ledgerToDrop;

	@Autowired
	private IdempotencyTester idempotency;

	@Autowired
	private KafkaTemplate<String, String> kafka;

	@Autowired
	private Ledger ledger;

	private final String order = "order-" + UUID.randomUUID();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", TestDatabases::postgresUrl);
		registry.add("spring.datasource.username", () -> "postgres");
	}

	@AfterAll
	static void dropLedger() {
		if (ledgerToDrop != null) {
			ledgerToDrop.drop();
		}
	}

	@Test
	void recordSentTwiceIsProcessedOnceAndSkippedOnce() {
		this.idempotency.deliverTwice(() -> this.kafka.send(TOPIC, this.order).join());
		this.idempotency.await().processed(1).duplicates(1);
		assertThat(this.ledger.credits(this.order)).isEqualTo(1);
	}

	@Test
	void crashAfterCommitMakesKafkaRedeliverTheRecordAndTheRedeliveryIsSkipped() {
		this.idempotency.crashAfterCommit();
		this.kafka.send(TOPIC, this.order).join();
		this.idempotency.await().processed(1).duplicates(1).failed(0);
		assertThat(this.ledger.credits(this.order)).isEqualTo(1);
	}

	@Test
	void storeOutagePausesTheListenerAndTheRecordIsProcessedOnceTheStoreRecovers() {
		this.idempotency.store().fail();
		this.kafka.send(TOPIC, this.order).join();
		this.idempotency.await().listenerPauses(1);
		assertThat(this.idempotency).processed(0).deadLettered(0);
		assertThat(this.ledger.credits(this.order)).isZero();
		this.idempotency.store().recover();
		this.idempotency.await().processed(1);
		assertThat(this.idempotency).deadLettered(0);
		assertThat(this.ledger.credits(this.order)).isEqualTo(1);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class KafkaApplication {

		@Bean
		Ledger ledger(JdbcTemplate jdbc) {
			Ledger ledger = new Ledger(jdbc);
			ledgerToDrop = ledger;
			return ledger;
		}

		@Bean
		PointsListener pointsListener(Ledger ledger) {
			return new PointsListener(ledger);
		}

	}

	static class PointsListener {

		private final Ledger ledger;

		PointsListener(Ledger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(id = "kit-points", topics = TOPIC, groupId = "kit-points")
		@Idempotent(key = "#orderId")
		public void credit(String orderId) {
			this.ledger.credit(orderId);
		}

	}

}
