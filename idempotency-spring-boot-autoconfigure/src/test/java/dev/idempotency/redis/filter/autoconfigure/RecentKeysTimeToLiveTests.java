package dev.idempotency.redis.filter.autoconfigure;

import java.time.Duration;

import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaProperties;
import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default time to live of a recently completed key: the Kafka retry budget plus the margin, with
 * {@code idempotency.kafka.retry.*} bound from the environment and the Kafka adapter's defaults.
 */
class RecentKeysTimeToLiveTests {

	@Test
	void theTimeToLiveIsTheRetryBudgetPlusTheMargin() {
		IdempotencyKafkaProperties kafka = new IdempotencyKafkaProperties();
		kafka.getRetry().setMaxAttempts(4);
		kafka.getRetry().setInitialInterval(Duration.ofSeconds(1));
		kafka.getRetry().setMultiplier(2);
		kafka.getRetry().setMaxInterval(Duration.ofSeconds(3));
		// Back-offs between 4 attempts: 1 s, 2 s, then 4 s capped at 3 s.
		assertThat(RecentKeysTimeToLive.derive(kafka.getRetry(), Duration.ofHours(1)))
			.isEqualTo(Duration.ofHours(1).plusSeconds(6));
	}

	@Test
	void theKafkaRetryPropertiesAreBoundFromTheEnvironment() {
		MockEnvironment environment = new MockEnvironment().withProperty("idempotency.kafka.retry.max-attempts", "4")
			.withProperty("idempotency.kafka.retry.initial-interval", "1s")
			.withProperty("idempotency.kafka.retry.multiplier", "2")
			.withProperty("idempotency.kafka.retry.max-interval", "3s");
		assertThat(RecentKeysTimeToLive.derive(environment, Duration.ofHours(1)))
			.isEqualTo(Duration.ofHours(1).plusSeconds(6));
	}

	@Test
	void withoutKafkaRetryPropertiesTheBudgetIsTheKafkaAdaptersDefault() {
		Duration margin = Duration.ofMinutes(5);
		assertThat(RecentKeysTimeToLive.derive(new MockEnvironment(), margin))
			.isEqualTo(RecentKeysTimeToLive.derive(new IdempotencyKafkaProperties().getRetry(), margin))
			.isEqualTo(margin.plusSeconds(3));
	}

	@Test
	void theKafkaRetryDefaultsAreTheKafkaAdapters() {
		RecentKeysTimeToLive.KafkaRetry retry = new RecentKeysTimeToLive.KafkaRetry();
		IdempotencyKafkaProperties.Retry kafka = new IdempotencyKafkaProperties().getRetry();
		assertThat(retry.getMaxAttempts()).isEqualTo(kafka.getMaxAttempts());
		assertThat(retry.getInitialInterval()).isEqualTo(kafka.getInitialInterval());
		assertThat(retry.getMultiplier()).isEqualTo(kafka.getMultiplier());
		assertThat(retry.getMaxInterval()).isEqualTo(kafka.getMaxInterval());
	}

}
