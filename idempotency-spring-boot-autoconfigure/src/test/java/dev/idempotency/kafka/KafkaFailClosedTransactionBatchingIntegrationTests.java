package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static dev.idempotency.kafka.FailClosedKafkaApplication.RECORDS;
import static dev.idempotency.kafka.FailClosedKafkaFixture.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A record listener with transaction batching on through a database outage: PostgreSQL is cut
 * behind a {@code TcpProxy} while polls are in flight, and restored. The failed batch runs again
 * record by record, whose first record's infrastructure failure pauses the listener: nothing reaches
 * the dead-letter topic and every order is credited exactly once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaFailClosedTransactionBatchingIntegrationTests {

	private static final Duration OUTAGE = Duration.ofSeconds(8);

	private FailClosedKafkaFixture fixture;

	@BeforeAll
	void start() {
		this.fixture = FailClosedKafkaFixture.start("idempotency.kafka.transaction-batching.enabled=true");
	}

	@AfterAll
	void stop() {
		this.fixture.close();
	}

	@Test
	void batchedRecordListenerPausesThroughAnOutageAndCreditsEveryOrderOnceWithNothingDeadLettered()
			throws Exception {
		this.fixture.sendOrdersThroughAnOutage(RECORDS, OUTAGE);
		await().atMost(120, TimeUnit.SECONDS)
			.ignoreExceptions()
			.failFast("a record was dead-lettered", () -> this.fixture.deadLetterCount(RECORDS) > 0)
			.until(() -> this.fixture.ledgerCount(RECORDS) == ORDERS);
		assertThat(this.fixture.creditedMoreThanOnce(RECORDS)).as("orders credited more than once").isEmpty();
		assertThat(this.fixture.deadLetterCount(RECORDS)).as("records on the dead-letter topic").isZero();
		assertThat(this.fixture.deadLettered(RECORDS)).isZero();
		assertThat(this.fixture.pauses(RECORDS)).as("pauses counted").isGreaterThanOrEqualTo(1);
		assertThat(this.fixture.paused(RECORDS)).as("paused gauge after the recovery").isZero();
		List.of("late-1", "late-2").forEach((order) -> this.fixture.kafka.send(RECORDS, order, order + ":1"));
		await().atMost(30, TimeUnit.SECONDS).until(() -> this.fixture.ledgerCount(RECORDS) == ORDERS + 2);
	}

}
