package dev.idempotency.kafka;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.NonRetryableIdempotencyException;
import dev.idempotency.support.FailClosedCircuits;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.FailedRecordProcessor;
import org.springframework.kafka.listener.ListenerUtils;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.ExponentialBackOffWithMaxRetries;
import org.springframework.util.backoff.BackOff;

/**
 * The decisions that the starter's error handler ({@link IdempotentErrorHandler}) and its
 * after-rollback processor ({@link IdempotentAfterRollbackProcessor}) share, so that a failure is
 * treated the same with and without Kafka transactions: which failures are retried and how often,
 * which go to the recoverer at once, which wait for a lease, and which pause the listener
 * (fail-closed) without counting an attempt.
 *
 * @since 0.2.0
 */
final class KafkaFailurePolicy {

	private final @Nullable FailClosedPause failClosed;

	/**
	 * Creates the policy.
	 * @param circuits the fail-closed circuits, or {@code null} to treat infrastructure failures as
	 * any other (fail-closed off)
	 */
	KafkaFailurePolicy(@Nullable FailClosedCircuits circuits) {
		this.failClosed = (circuits != null) ? new FailClosedPause(circuits) : null;
	}

	/**
	 * The back-off between the attempts of a failed record.
	 * @param maxAttempts deliveries of a record before it is recovered, at least 1
	 * @param initialInterval back-off before the second attempt
	 * @param multiplier back-off growth per attempt
	 * @param maxInterval longest back-off
	 * @return an exponential back-off that stops after {@code maxAttempts - 1} retries
	 */
	static BackOff retryBackOff(int maxAttempts, Duration initialInterval, double multiplier, Duration maxInterval) {
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("maxAttempts must be at least 1");
		}
		ExponentialBackOffWithMaxRetries backOff = new ExponentialBackOffWithMaxRetries(maxAttempts - 1);
		backOff.setInitialInterval(initialInterval.toMillis());
		backOff.setMultiplier(multiplier);
		backOff.setMaxInterval(maxInterval.toMillis());
		return backOff;
	}

	/**
	 * Teaches an error handler or an after-rollback processor the starter's classification.
	 * @param processor the processor to configure
	 */
	static void applyTo(FailedRecordProcessor processor) {
		// The recovered record's offset is committed (in the Kafka transaction, if any) with the
		// recovery; otherwise nothing would commit it until a later record of the partition
		// succeeds, and a crash or a rebalance would dead-letter it again.
		processor.setCommitRecovered(true);
		processor.addNotRetryableExceptions(NonRetryableIdempotencyException.class);
		// A key in progress elsewhere is not the record's fault: wait for the lease instead of
		// spending the record's attempts; a later failure of another type starts them afresh.
		processor.setBackOffFunction((record, ex) -> InProgressBackOff.of(ex));
		processor.setResetStateOnExceptionChange(true);
	}

	/**
	 * Whether fail-closed is on.
	 * @return {@code true} if infrastructure failures pause the listener
	 */
	boolean isFailClosed() {
		return this.failClosed != null;
	}

	/**
	 * Whether a failure pauses the listener. Any other failure got through to the infrastructure
	 * and closes the circuit that this consumer thread opened.
	 * @param failure what the delivery failed with
	 * @return {@code true} for an infrastructure failure with fail-closed on
	 */
	boolean pauses(Exception failure) {
		if (this.failClosed == null) {
			return false;
		}
		if (this.failClosed.pauses(failure)) {
			return true;
		}
		FailClosedPause.deliveryGotThrough();
		return false;
	}

	/**
	 * Opens the listener's circuit and waits for the stores (see {@link FailClosedPause}).
	 * @param failure the infrastructure failure
	 * @param container the container whose consumer thread this is
	 */
	void awaitRecovery(Exception failure, MessageListenerContainer container) {
		if (this.failClosed != null) {
			this.failClosed.awaitRecovery(failure, container);
		}
	}

	/**
	 * Waits one {@link InProgressBackOff} step for a key that another worker holds.
	 * @param inProgress the failure
	 * @param container the container, whose stop ends the wait
	 */
	static void awaitLease(IdempotencyInProgressException inProgress, MessageListenerContainer container) {
		try {
			ListenerUtils.stoppableSleep(container, InProgressBackOff.interval(inProgress.getLease()).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Seeks every partition of {@code records} back to its first record, so that the next poll
	 * delivers them all again and nothing of them is committed.
	 * @param records the records in hand, in delivery order
	 * @param consumer the consumer
	 */
	static void seekBack(Iterable<? extends ConsumerRecord<?, ?>> records, Consumer<?, ?> consumer) {
		Map<TopicPartition, Long> first = new LinkedHashMap<>();
		records.forEach((record) -> first.putIfAbsent(new TopicPartition(record.topic(), record.partition()),
				record.offset()));
		first.forEach(consumer::seek);
	}

}
