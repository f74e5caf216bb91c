package dev.idempotency.test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.redis.stream.RedisStreamListener;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The kit around an {@code @Idempotent @RedisStreamListener} on the local Redis, with the JDBC store
 * on the local PostgreSQL: the acknowledgement ({@code XACK}) goes through the engine, so a lost one
 * leaves the entry pending until the adapter claims it again. The tester arrives as a test method
 * parameter, resolved by the extension.
 */
@SpringBootTest(classes = RedisStreamListenerIntegrationTests.StreamApplication.class,
		properties = { "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=6379",
				"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false",
				"idempotency.redis.stream.poll-timeout=200ms", "idempotency.redis.stream.min-idle=3s",
				"idempotency.redis.stream.claim-interval=300ms", "idempotency.redis.stream.recovery-back-off=100ms",
				"idempotency.fail-closed.probe-interval=200ms" })
@IdempotencyTest
class RedisStreamListenerIntegrationTests {

	static final String STREAM = "kit-orders-" + UUID.randomUUID().toString().substring(0, 8);

	private static Ledger ledgerToDrop;

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private Ledger ledger;

	private final String order = "order-" + UUID.randomUUID();

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", TestDatabases::postgresUrl);
		registry.add("spring.datasource.username", () -> "postgres");
		registry.add("kit.stream", () -> STREAM);
	}

	@AfterAll
	static void dropLedger() {
		if (ledgerToDrop != null) {
			ledgerToDrop.drop();
		}
	}

	@Test
	void entryAddedTwiceIsProcessedOnceAndSkippedOnce(IdempotencyTester idempotency) {
		idempotency.deliverTwice(this::add);
		idempotency.await().processed(1).duplicates(1);
		assertThat(this.ledger.credits(this.order)).isEqualTo(1);
		await().until(() -> pending() == 0);
	}

	@Test
	void lostAcknowledgementLeavesTheEntryPendingAndItsRedeliveryIsSkipped(IdempotencyTester idempotency) {
		idempotency.crashAfterCommit();
		add();
		idempotency.await().processed(1).duplicates(1);
		assertThat(this.ledger.credits(this.order)).isEqualTo(1);
		await().until(() -> pending() == 0);
		assertThat(idempotency).failed(0).deadLettered(0);
	}

	@Test
	void storeOutagePausesTheStreamListenerAndTheEntryIsProcessedOnceTheStoreRecovers(IdempotencyTester idempotency) {
		idempotency.store().fail();
		add();
		idempotency.await().listenerPauses(1);
		assertThat(idempotency).processed(0).deadLettered(0);
		idempotency.store().recover();
		idempotency.await().processed(1);
		assertThat(this.ledger.credits(this.order)).isEqualTo(1);
		assertThat(idempotency).deadLettered(0);
	}

	private void add() {
		this.redis.opsForStream().add(StreamRecords.newRecord().in(STREAM).ofMap(Map.of("payload", this.order)));
	}

	private long pending() {
		return this.redis.opsForStream().pending(STREAM, "kit-points").getTotalPendingMessages();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class StreamApplication {

		@Bean
		Ledger ledger(JdbcTemplate jdbc) {
			Ledger ledger = new Ledger(jdbc);
			ledgerToDrop = ledger;
			return ledger;
		}

		@Bean
		StreamPoints streamPoints(Ledger ledger) {
			return new StreamPoints(ledger);
		}

		/** Deletes the test's streams once the listeners stopped (lifecycle beans stop before this runs). */
		@Bean
		DisposableBean deleteStreams(StringRedisTemplate redis) {
			return () -> redis.delete(List.of(STREAM, STREAM + ".dlq"));
		}

	}

	static class StreamPoints {

		private final Ledger ledger;

		StreamPoints(Ledger ledger) {
			this.ledger = ledger;
		}

		@RedisStreamListener(id = "kit-points", stream = "${kit.stream}", group = "kit-points")
		@Idempotent(key = "#orderId")
		public void credit(String orderId) {
			this.ledger.credit(orderId);
		}

	}

}
