package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static dev.idempotency.kafka.FailClosedKafkaApplication.BATCH;
import static dev.idempotency.kafka.FailClosedKafkaApplication.POISON;
import static dev.idempotency.kafka.FailClosedKafkaApplication.RECORDS;
import static dev.idempotency.kafka.FailClosedKafkaFixture.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fail-closed Kafka listeners through a database outage: PostgreSQL is cut behind a
 * {@code TcpProxy} while records are in flight, and restored. The listener pauses (once), nothing
 * reaches the dead-letter topic, every order is credited exactly once, consumption resumes soon
 * after the restore; a real poison record still reaches the dead-letter topic after its attempts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaFailClosedIntegrationTests {

	private static final Duration OUTAGE = Duration.ofSeconds(8);

	private FailClosedKafkaFixture fixture;

	@BeforeAll
	void start() {
		this.fixture = FailClosedKafkaFixture.start();
	}

	@AfterAll
	void stop() {
		this.fixture.close();
	}

	@Test
	void recordListenerPausesThroughAnOutageAndCreditsEveryOrderOnceWithNothingDeadLettered() throws Exception {
		assertOutageRidesThrough(RECORDS);
	}

	@Test
	void batchListenerPausesThroughAnOutageAndCreditsEveryOrderOnceWithNothingDeadLettered() throws Exception {
		assertOutageRidesThrough(BATCH);
	}

	@Test
	void poisonRecordSentDuringAnOutageIsDeadLetteredAfterItsAttemptsAndTheRecordsAfterItFlow() throws Exception {
		for (int i = 0; i < 5; i++) {
			this.fixture.kafka.send(POISON, "before-" + i + ":1");
		}
		await().atMost(30, TimeUnit.SECONDS).until(() -> this.fixture.commits.credits(POISON) == 5);
		FailClosedKafkaApplication.FailClosedListeners listeners = this.fixture.context
			.getBean(FailClosedKafkaApplication.FailClosedListeners.class);
		this.fixture.database.cut();
		try {
			this.fixture.kafka.send(POISON, "poison-1:1");
			for (int i = 0; i < 5; i++) {
				this.fixture.kafka.send(POISON, "after-" + i + ":1");
			}
			this.fixture.kafka.flush();
			Thread.sleep(4000);
			assertThat(listeners.poisonInvocations()).as("calls with the poison record during the outage").isZero();
			assertThat(this.fixture.paused(POISON)).as("paused gauge during the outage").isOne();
		}
		finally {
			this.fixture.database.restore();
		}
		assertThat(this.fixture.deadLetters(POISON, 1)).containsExactly("poison-1:1");
		await().atMost(30, TimeUnit.SECONDS).until(() -> this.fixture.ledgerCount(POISON) == 10);
		assertThat(this.fixture.creditedMoreThanOnce(POISON)).isEmpty();
		assertThat(listeners.poisonInvocations()).as("its configured attempts (3), all after the restore").isEqualTo(3);
		assertThat(this.fixture.pauses(POISON)).isEqualTo(1);
		assertThat(this.fixture.paused(POISON)).isZero();
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
		List.of("late-1", "late-2").forEach((order) -> this.fixture.kafka.send(listener, order, order + ":1"));
		await().atMost(30, TimeUnit.SECONDS).until(() -> this.fixture.ledgerCount(listener) == ORDERS + 2);
	}

}
