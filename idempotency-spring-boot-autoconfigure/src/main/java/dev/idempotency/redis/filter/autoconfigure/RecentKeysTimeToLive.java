package dev.idempotency.redis.filter.autoconfigure;

import java.time.Duration;

import dev.idempotency.autoconfigure.RetryProperties;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The default time to live of a recently completed key: the longest a duplicate can still arrive
 * through the transport's retries (the Kafka retry budget: the sum of the back-offs between
 * {@code max-attempts} attempts) plus a margin for redeliveries after a crash or a rebalance.
 */
final class RecentKeysTimeToLive {

	private static final String KAFKA_RETRY = "idempotency.kafka.retry";

	private RecentKeysTimeToLive() {
	}

	/**
	 * The time to live from {@code idempotency.kafka.retry.*}, bound here rather than read from the
	 * Kafka adapter's properties: the Redis layer does not depend on the Kafka adapter, and the budget
	 * is the same whether or not the adapter runs.
	 */
	static Duration derive(Environment environment, Duration margin) {
		KafkaRetry retry = new KafkaRetry();
		Binder.get(environment).bind(KAFKA_RETRY, Bindable.ofInstance(retry));
		return derive(retry, margin);
	}

	static Duration derive(RetryProperties retry, Duration margin) {
		double interval = retry.getInitialInterval().toMillis();
		long budget = 0;
		for (int attempt = 1; attempt < retry.getMaxAttempts(); attempt++) {
			budget += (long) Math.min(interval, retry.getMaxInterval().toMillis());
			interval *= retry.getMultiplier();
		}
		return Duration.ofMillis(budget).plus(margin);
	}

	/**
	 * {@code idempotency.kafka.retry} with the Kafka adapter's defaults, which
	 * {@code RecentKeysTimeToLiveTests} holds equal to those of {@code IdempotencyKafkaProperties}.
	 */
	static final class KafkaRetry extends RetryProperties {

		KafkaRetry() {
			super(3, Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10));
		}

	}

}
