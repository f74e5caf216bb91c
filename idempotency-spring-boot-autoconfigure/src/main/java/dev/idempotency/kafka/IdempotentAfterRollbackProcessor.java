package dev.idempotency.kafka;

import java.util.List;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.NonRetryableIdempotencyException;
import dev.idempotency.support.FailClosedCircuits;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.ContainerProperties.EOSMode;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.util.backoff.BackOff;

/**
 * spring-kafka's {@link DefaultAfterRollbackProcessor} with the starter's decisions, for listener
 * containers that run in Kafka transactions. The container calls it after it rolled a failed
 * delivery back: when the listener failed and no error handler is set, or when the error handler
 * did not recover the record (it retries by throwing). spring-kafka's default would log and skip
 * a record after ten rollbacks, counting outages and keys in progress: a lost message. This one:
 * <ul>
 * <li>retries with the same back-off and attempts as the error handler, then publishes the record
 * with the same recoverer ({@code <topic>.DLT}), in a new Kafka transaction that also commits the
 * record's offset ({@code commitRecovered}), so a {@code read_committed} reader sees the dead
 * letter exactly when the offset moves;</li>
 * <li>recovers a {@link NonRetryableIdempotencyException} at once;</li>
 * <li>waits for the lease on an {@link IdempotencyInProgressException}, without counting;</li>
 * <li>with fail-closed on, seeks an infrastructure failure back, opens the listener's circuit and
 * waits for the stores ({@link FailClosedPause}; not again if the error handler just did), never
 * counting or recovering it.</li>
 * </ul>
 * Batch listeners: an infrastructure failure or a key in progress is sought back and waited for
 * the same way; any other failure is left to {@code DefaultAfterRollbackProcessor}, which recovers
 * a batch only when the container's {@code batchRecoverAfterRollback} is set, and otherwise seeks
 * it back (the error handler, which runs first in the transaction, recovers it).
 *
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.2.0
 */
public class IdempotentAfterRollbackProcessor<K, V> extends DefaultAfterRollbackProcessor<K, V> {

	private final KafkaFailurePolicy policy;

	/**
	 * Creates the processor; see {@link KafkaErrorHandlers#retryThenRecoverAfterRollback}.
	 * @param recoverer where records go after the last attempt
	 * @param backOff the back-off between attempts
	 * @param kafkaOperations the template whose transaction a recovered record's offset is sent to
	 * @param circuits the fail-closed circuits, or {@code null} to count infrastructure failures as
	 * attempts (fail-closed off)
	 */
	public IdempotentAfterRollbackProcessor(ConsumerRecordRecoverer recoverer, BackOff backOff,
			KafkaOperations<?, ?> kafkaOperations, @Nullable FailClosedCircuits circuits) {
		super(recoverer, backOff, kafkaOperations, true);
		this.policy = new KafkaFailurePolicy(circuits);
		KafkaFailurePolicy.applyTo(this);
	}

	/**
	 * Whether an infrastructure failure pauses the listener instead of counting an attempt.
	 * @return {@code true} if built with fail-closed circuits
	 */
	public boolean isFailClosed() {
		return this.policy.isFailClosed();
	}

	@Override
	public void process(List<ConsumerRecord<K, V>> records, Consumer<K, V> consumer,
			@Nullable MessageListenerContainer container, Exception exception, boolean recoverable, EOSMode eosMode) {
		if (container != null && this.policy.pauses(exception)) {
			pauseUntilRecovered(records, consumer, container, exception);
			return;
		}
		super.process(records, consumer, container, exception, recoverable, eosMode);
	}

	@Override
	public void processBatch(ConsumerRecords<K, V> records, List<ConsumerRecord<K, V>> recordList,
			Consumer<K, V> consumer, @Nullable MessageListenerContainer container, Exception exception,
			boolean recoverable, EOSMode eosMode) {
		IdempotencyInProgressException inProgress = IdempotentErrorHandler.find(exception,
				IdempotencyInProgressException.class);
		if (container != null && inProgress != null) {
			FailClosedPause.deliveryGotThrough();
			KafkaFailurePolicy.seekBack(recordList, consumer);
			KafkaFailurePolicy.awaitLease(inProgress, container);
			return;
		}
		if (container != null && this.policy.pauses(exception)) {
			pauseUntilRecovered(recordList, consumer, container, exception);
			return;
		}
		super.processBatch(records, recordList, consumer, container, exception, recoverable, eosMode);
	}

	/**
	 * The rolled-back records are fetched again from their first offsets; nothing of them was
	 * committed (the transaction rolled back), counted or recovered.
	 */
	private void pauseUntilRecovered(List<? extends ConsumerRecord<?, ?>> records, Consumer<?, ?> consumer,
			MessageListenerContainer container, Exception exception) {
		KafkaFailurePolicy.seekBack(records, consumer);
		if (!FailClosedPause.alreadyWaitedFor(exception)) {
			this.policy.awaitRecovery(exception, container);
		}
	}

}
