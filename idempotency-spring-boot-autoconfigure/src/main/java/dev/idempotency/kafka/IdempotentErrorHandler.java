package dev.idempotency.kafka;

import java.util.List;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotentBatchFailedException;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.support.FailClosedCircuits;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.KafkaException;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.SeekUtils;
import org.springframework.util.backoff.BackOff;

/**
 * spring-kafka's {@link DefaultErrorHandler}, taught what an {@code @Idempotent} batch listener's
 * failures mean:
 * <ul>
 * <li>A message whose key failed ({@link InvalidIdempotencyKeyException#getElementIndex()}): the
 * interceptor committed the messages before it and acknowledged nothing, so it becomes a
 * {@link BatchListenerFailedException} at that index: their offsets are committed, the message is
 * recovered at once, the rest redelivered. This translation is the only place that turns a batch
 * position into offsets to commit.</li>
 * <li>A batch that was rolled back as a whole ({@link IdempotentBatchFailedException}): a
 * {@code BatchListenerFailedException} the listener threw is removed from the cause chain, since
 * committing the offsets before its index would lose rolled-back work; the whole batch is retried
 * and, after the last attempt, each of its records recovered.</li>
 * <li>A key in progress elsewhere ({@link IdempotencyInProgressException}): the batch is sought back
 * and delivered again after an {@link InProgressBackOff} step, without counting an attempt.</li>
 * <li>With fail-closed on (a {@link FailClosedCircuits}), an infrastructure failure of a record or
 * a batch: the records are sought back to their first offsets, the listener's circuit opens and
 * the consumer thread waits for the stores ({@link FailClosedPause}), then an exception keeps the
 * container from committing (spring-kafka's own record-in-retry exception for records, a
 * {@code KafkaException} at DEBUG level for a batch). No attempt is counted and nothing is
 * recovered, however long the outage lasts.</li>
 * </ul>
 * Record listeners are otherwise handled as by {@code DefaultErrorHandler}, with the back-off
 * function that {@link KafkaErrorHandlers} sets. The decisions it shares with the
 * {@link IdempotentAfterRollbackProcessor} live in {@link KafkaFailurePolicy}. With Kafka
 * transactions, this handler runs inside the record's transaction: a recovered record's dead letter
 * and offset commit together, and what it retries (by throwing) rolls the transaction back and goes
 * to the after-rollback processor.
 *
 * @since 0.1.0
 */
public class IdempotentErrorHandler extends DefaultErrorHandler {

	private final KafkaFailurePolicy policy;

	/**
	 * Creates the error handler with fail-closed off.
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #IdempotentErrorHandler(ConsumerRecordRecoverer,
	 * BackOff, FailClosedCircuits)} with {@code null} circuits (fail-closed off)
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public IdempotentErrorHandler(ConsumerRecordRecoverer recoverer, BackOff backOff) {
		this(recoverer, backOff, null);
	}

	/**
	 * Creates the error handler.
	 * @param recoverer where records go after the last attempt
	 * @param backOff the back-off between attempts
	 * @param circuits the fail-closed circuits, or {@code null} to treat infrastructure failures as
	 * any other (fail-closed off)
	 * @since 0.2.0
	 */
	public IdempotentErrorHandler(ConsumerRecordRecoverer recoverer, BackOff backOff,
			@Nullable FailClosedCircuits circuits) {
		super(recoverer, backOff);
		this.policy = new KafkaFailurePolicy(circuits);
	}

	/**
	 * Whether an infrastructure failure pauses the listener instead of counting an attempt.
	 * @return {@code true} if built with fail-closed circuits
	 * @since 0.2.0
	 */
	public boolean isFailClosed() {
		return this.policy.isFailClosed();
	}

	@Override
	public boolean handleOne(Exception thrownException, ConsumerRecord<?, ?> record, Consumer<?, ?> consumer,
			MessageListenerContainer container) {
		if (this.policy.pauses(thrownException)) {
			this.policy.awaitRecovery(thrownException, container);
			// Not recovered: the container delivers the record again.
			return false;
		}
		return super.handleOne(thrownException, record, consumer, container);
	}

	@Override
	public void handleRemaining(Exception thrownException, List<ConsumerRecord<?, ?>> records,
			Consumer<?, ?> consumer, MessageListenerContainer container) {
		if (this.policy.pauses(thrownException)) {
			// spring-kafka's own path for a record in retry, never recovered: wait, seek every
			// partition back to its first remaining record, throw so that nothing is committed.
			SeekUtils.seekOrRecover(thrownException, records, consumer, container, false, (record, failure) -> {
				this.policy.awaitRecovery(failure, container);
				return false;
			}, this.logger, getLogLevel());
			return;
		}
		super.handleRemaining(thrownException, records, consumer, container);
	}

	@Override
	public void handleBatch(Exception thrownException, ConsumerRecords<?, ?> data, Consumer<?, ?> consumer,
			MessageListenerContainer container, Runnable invokeListener) {
		IdempotencyInProgressException inProgress = find(thrownException, IdempotencyInProgressException.class);
		if (inProgress != null) {
			FailClosedPause.deliveryGotThrough();
			redeliverLater(data, consumer, container, inProgress);
		}
		if (this.policy.pauses(thrownException)) {
			KafkaFailurePolicy.seekBack(data, consumer);
			this.policy.awaitRecovery(thrownException, container);
			throw redeliveredAfterOutage(thrownException);
		}
		super.handleBatch(translate(thrownException), data, consumer, container, invokeListener);
	}

	private static KafkaException redeliveredAfterOutage(Exception thrownException) {
		return new KafkaException("Redelivered when the infrastructure answers again (fail-closed)",
				KafkaException.Level.DEBUG, thrownException);
	}

	/**
	 * A batch with a key in progress elsewhere: back to its first offsets, wait one
	 * {@link InProgressBackOff} step and let the next poll deliver it again, without counting an
	 * attempt. The exception keeps the container from committing the batch.
	 */
	private static void redeliverLater(ConsumerRecords<?, ?> data, Consumer<?, ?> consumer,
			MessageListenerContainer container, IdempotencyInProgressException inProgress) {
		KafkaFailurePolicy.seekBack(data, consumer);
		KafkaFailurePolicy.awaitLease(inProgress, container);
		throw new KafkaException("Batch redelivered later: " + inProgress.getMessage(), KafkaException.Level.DEBUG,
				inProgress);
	}

	static Exception translate(Exception thrown) {
		InvalidIdempotencyKeyException rejected = find(thrown, InvalidIdempotencyKeyException.class);
		if (rejected != null && rejected.getElementIndex() >= 0) {
			return new BatchListenerFailedException(rejected.getMessage(), rejected, rejected.getElementIndex());
		}
		IdempotentBatchFailedException rolledBack = find(thrown, IdempotentBatchFailedException.class);
		if (rolledBack != null && find(rolledBack, BatchListenerFailedException.class) != null) {
			return new IdempotentBatchFailedException(rolledBack.getMessage(), withoutBatchListenerFailed(rolledBack));
		}
		return thrown;
	}

	/** The cause chain of {@code failure} below its {@code BatchListenerFailedException}, if any. */
	private static Throwable withoutBatchListenerFailed(IdempotentBatchFailedException failure) {
		BatchListenerFailedException indexed = find(failure, BatchListenerFailedException.class);
		Throwable cause = (indexed != null) ? indexed.getCause() : failure.getCause();
		if (cause == null) {
			// Keep the listener's message, without the index spring-kafka would act on.
			return new IllegalStateException(String.valueOf((indexed != null) ? indexed.getMessage() : null));
		}
		return cause;
	}

	static <T extends Throwable> @Nullable T find(Throwable thrown, Class<T> type) {
		Throwable candidate = thrown;
		for (int depth = 0; candidate != null && depth < 32; depth++) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
			candidate = candidate.getCause();
		}
		return null;
	}

}
