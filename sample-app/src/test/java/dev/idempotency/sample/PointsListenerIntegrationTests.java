package dev.idempotency.sample;

import java.util.UUID;

import dev.idempotency.test.IdempotencyTest;
import dev.idempotency.test.IdempotencyTester;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The points listener ({@link PointsService}) tested as a user tests theirs, with the test kit: the
 * application without the demo run, its in-process Kafka broker and H2; each order sent by the test
 * itself, the outcomes read from the engine's meters.
 */
@SpringBootTest(properties = { "demo.enabled=false", "spring.datasource.url=jdbc:h2:mem:points-kit;DB_CLOSE_DELAY=-1",
		"idempotency.kafka.retry.initial-interval=50ms", "idempotency.fail-closed.probe-interval=200ms" })
@IdempotencyTest
class PointsListenerIntegrationTests {

	@Autowired
	private IdempotencyTester idempotency;

	@Autowired
	private KafkaTemplate<Object, Object> kafka;

	@Autowired
	private JdbcTemplate jdbc;

	private final OrderPlaced order = new OrderPlaced("kit-" + UUID.randomUUID(), "user-1", 10);

	@Test
	void orderSentTwiceIsCreditedOnce() {
		this.idempotency.deliverTwice(this::send);
		this.idempotency.await().namespace(KafkaFlow.GROUP).processed(1).duplicates(1);
		assertThat(credits()).isEqualTo(1);
	}

	@Test
	void consumerCrashAfterTheCommitDoesNotCreditTheRedeliveredOrderAgain() {
		this.idempotency.crashAfterCommit();
		send();
		this.idempotency.await().namespace(KafkaFlow.GROUP).processed(1).duplicates(1).failed(0);
		assertThat(credits()).isEqualTo(1);
	}

	@Test
	void databaseOutagePausesTheListenerAndTheOrderIsCreditedOnceItIsBack() {
		this.idempotency.store().fail();
		send();
		this.idempotency.await().listenerPauses(1);
		assertThat(credits()).isZero();
		this.idempotency.store().recover();
		this.idempotency.await().namespace(KafkaFlow.GROUP).processed(1);
		assertThat(this.idempotency).deadLettered(0);
		assertThat(credits()).isEqualTo(1);
	}

	private void send() {
		this.kafka.send(KafkaFlow.TOPIC, this.order.orderId(), this.order).join();
	}

	private long credits() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM points_ledger WHERE flow = ? AND order_id = ?",
				Long.class, PointsService.FLOW, this.order.orderId());
	}

}
