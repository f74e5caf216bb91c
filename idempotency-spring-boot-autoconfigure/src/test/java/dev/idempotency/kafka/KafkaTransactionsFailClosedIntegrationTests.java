package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static dev.idempotency.kafka.FailClosedKafkaApplication.BATCH;
import static dev.idempotency.kafka.FailClosedKafkaApplication.RECORDS;
import static dev.idempotency.kafka.FailClosedKafkaApplication.ROLLBACK_ONLY;
import static dev.idempotency.kafka.FailClosedKafkaFixture.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fail-closed with Kafka transactions on (Spring Boot's {@code KafkaTransactionManager} on the
 * containers, the DataSource's manager for {@code @Idempotent}): PostgreSQL is cut for 8 s behind
 * a {@code TcpProxy} while records are in flight. Each listener pauses once, nothing reaches the
 * dead-letter topic, every order is credited exactly once. {@value FailClosedKafkaApplication#ROLLBACK_ONLY}
 * has no error handler, so the after-rollback processor alone decides; spring-kafka's default one
 * would count each failed attempt and skip a record after ten.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaTransactionsFailClosedIntegrationTests {

	private static final Duration OUTAGE = Duration.ofSeconds(8);

	private FailClosedKafkaFixture fixture;

	@BeforeAll
	void start() {
		this.fixture = FailClosedKafkaFixture.start(
				"spring.kafka.producer.transaction-id-prefix=fc-tx-" + System.nanoTime() + "-",
				"spring.kafka.consumer.isolation-level=read-committed");
	}

	@AfterAll
	void stop() {
		this.fixture.close();
	}

	@Test
	void recordListenerInKafkaTransactionsPausesThroughAnOutageAndCreditsEveryOrderOnce() throws Exception {
		assertOutageRidesThrough(RECORDS);
	}

	@Test
	void recordListenerWithoutErrorHandlerPausesInTheAfterRollbackProcessorAndCreditsEveryOrderOnce()
			throws Exception {
		assertOutageRidesThrough(ROLLBACK_ONLY);
	}

	@Test
	void batchListenerInKafkaTransactionsPausesThroughAnOutageAndCreditsEveryOrderOnce() throws Exception {
		assertOutageRidesThrough(BATCH);
	}

	private void assertOutageRidesThrough(String listener) throws Exception {
		Duration resumed = this.fixture.sendOrdersThroughAnOutage(listener, OUTAGE);
		await().atMost(120, TimeUnit.SECONDS)
			.ignoreExceptions()
			.failFast("a record was dead-lettered", () -> this.fixture.deadLetterCount(listener) > 0)
			.until(() -> this.fixture.ledgerCount(listener) == ORDERS);
		assertThat(this.fixture.creditedMoreThanOnce(listener)).as("orders credited more than once").isEmpty();
		assertThat(this.fixture.deadLetterCount(listener)).as("records on the dead-letter topic").isZero();
		assertThat(this.fixture.deadLettered(listener)).isZero();
		assertThat(this.fixture.pauses(listener)).as("pauses counted").isEqualTo(1);
		assertThat(this.fixture.paused(listener)).as("paused gauge after the recovery").isZero();
		assertThat(resumed).as("from the restore to the next commit").isLessThan(Duration.ofSeconds(10));
		// Nothing lost: a few more orders after the outage flow as usual.
		this.fixture.send((kafka) -> List.of("late-1", "late-2")
			.forEach((order) -> kafka.send(listener, listener + "-" + order, listener + "-" + order + ":1")));
		await().atMost(30, TimeUnit.SECONDS).until(() -> this.fixture.ledgerCount(listener) == ORDERS + 2);
	}

}
