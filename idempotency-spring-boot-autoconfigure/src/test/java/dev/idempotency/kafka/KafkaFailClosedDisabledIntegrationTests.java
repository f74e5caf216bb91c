package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static dev.idempotency.kafka.FailClosedKafkaApplication.RECORDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The behaviour without fail-closed ({@code idempotency.fail-closed.enabled=false}), which is the
 * behaviour before it: the same database outage as in {@link KafkaFailClosedIntegrationTests}
 * spends the attempts of valid records and dead-letters them. It shows that the outage those
 * tests ride through is real.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaFailClosedDisabledIntegrationTests {

	private FailClosedKafkaFixture fixture;

	@BeforeAll
	void start() {
		this.fixture = FailClosedKafkaFixture.start("idempotency.fail-closed.enabled=false");
	}

	@AfterAll
	void stop() {
		this.fixture.close();
	}

	@Test
	void withoutFailClosedAnOutageDeadLettersValidRecords() throws Exception {
		this.fixture.sendOrdersThroughAnOutage(RECORDS, Duration.ofSeconds(8));
		await().atMost(60, TimeUnit.SECONDS).until(() -> this.fixture.deadLetterCount(RECORDS) > 0);
		List<String> deadLetters = this.fixture.deadLetters(RECORDS, (int) this.fixture.deadLetterCount(RECORDS));
		System.out.println("[fail-closed off] valid records dead-lettered by the outage: " + deadLetters.size());
		assertThat(deadLetters).isNotEmpty().allSatisfy((value) -> assertThat(value).matches(RECORDS + "-\\d+:1"));
		assertThat(this.fixture.pauses(RECORDS)).isZero();
	}

}
