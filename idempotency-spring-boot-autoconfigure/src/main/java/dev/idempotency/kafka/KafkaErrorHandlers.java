package dev.idempotency.kafka;

import java.time.Duration;

import dev.idempotency.support.FailClosedCircuits;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * Builds the error handler the starter gives Spring Boot's listener container factory: retries with
 * exponential back-off in the consumer, then the recoverer. Errors retrying cannot fix
 * ({@code NonRetryableIdempotencyException}: a missing key, a key expression that fails,
 * {@code onDuplicate = THROW}; and the deserialization and conversion errors spring-kafka already
 * classifies) go to the recoverer at once. A key in progress elsewhere is retried with the
 * {@link InProgressBackOff} for as long as it stays in progress, never recovered. With fail-closed
 * on, an infrastructure failure pauses the listener until the stores answer again, without
 * counting an attempt (see {@link IdempotentErrorHandler}). With Kafka transactions, the
 * {@link IdempotentAfterRollbackProcessor} makes the same decisions for what the container hands
 * it after a rollback.
 *
 * @since 0.1.0
 */
public final class KafkaErrorHandlers {

	private KafkaErrorHandlers() {
	}

	/**
	 * Creates the error handler.
	 * @param recoverer where records go after the last attempt
	 * @param maxAttempts deliveries of a record before it is recovered, at least 1
	 * @param initialInterval back-off before the second attempt
	 * @param multiplier back-off growth per attempt
	 * @param maxInterval longest back-off
	 * @return the error handler
	 */
	public static DefaultErrorHandler retryThenRecover(ConsumerRecordRecoverer recoverer, int maxAttempts,
			Duration initialInterval, double multiplier, Duration maxInterval) {
		return retryThenRecover(recoverer, maxAttempts, initialInterval, multiplier, maxInterval, null);
	}

	/**
	 * Creates the error handler, fail-closed when {@code circuits} is given.
	 * @param recoverer where records go after the last attempt
	 * @param maxAttempts deliveries of a record before it is recovered, at least 1
	 * @param initialInterval back-off before the second attempt
	 * @param multiplier back-off growth per attempt
	 * @param maxInterval longest back-off
	 * @param circuits pause on infrastructure failures instead of counting them, or {@code null}
	 * for the behaviour without fail-closed (an infrastructure failure is an attempt like any other)
	 * @return the error handler
	 * @since 0.2.0
	 */
	public static DefaultErrorHandler retryThenRecover(ConsumerRecordRecoverer recoverer, int maxAttempts,
			Duration initialInterval, double multiplier, Duration maxInterval, @Nullable FailClosedCircuits circuits) {
		DefaultErrorHandler handler = new IdempotentErrorHandler(recoverer,
				KafkaFailurePolicy.retryBackOff(maxAttempts, initialInterval, multiplier, maxInterval), circuits);
		// In MANUAL_IMMEDIATE the container would only queue a recovered record's offset, and nothing
		// commits it until a later record of the partition is acknowledged: the dead letter would be
		// redelivered (and dead-lettered again) after a crash or a rebalance; hence commitRecovered.
		KafkaFailurePolicy.applyTo(handler);
		return handler;
	}

	/**
	 * Creates the after-rollback processor for containers that run in Kafka transactions: the same
	 * retries, recoverer and classification as {@link #retryThenRecover}, a recovered record's
	 * offset sent to the Kafka transaction that publishes it, and with {@code circuits},
	 * fail-closed.
	 * @param recoverer where records go after the last attempt
	 * @param kafkaOperations a transactional template, to send a recovered record's offset to the
	 * transaction
	 * @param maxAttempts deliveries of a record before it is recovered, at least 1
	 * @param initialInterval back-off before the second attempt
	 * @param multiplier back-off growth per attempt
	 * @param maxInterval longest back-off
	 * @param circuits pause on infrastructure failures instead of counting them, or {@code null}
	 * @return the after-rollback processor
	 * @since 0.2.0
	 */
	public static IdempotentAfterRollbackProcessor<Object, Object> retryThenRecoverAfterRollback(
			ConsumerRecordRecoverer recoverer, KafkaOperations<?, ?> kafkaOperations, int maxAttempts,
			Duration initialInterval, double multiplier, Duration maxInterval, @Nullable FailClosedCircuits circuits) {
		return new IdempotentAfterRollbackProcessor<>(recoverer,
				KafkaFailurePolicy.retryBackOff(maxAttempts, initialInterval, multiplier, maxInterval), kafkaOperations,
				circuits);
	}

}
