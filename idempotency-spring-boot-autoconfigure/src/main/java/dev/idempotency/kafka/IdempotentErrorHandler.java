package dev.idempotency.kafka;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotentBatchFailedException;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.KafkaException;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ListenerUtils;
import org.springframework.kafka.listener.MessageListenerContainer;
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
 * </ul>
 * Record listeners are handled as by {@code DefaultErrorHandler}, with the back-off function that
 * {@link KafkaErrorHandlers} sets.
 *
 * @since 0.1.0
 */
public class IdempotentErrorHandler extends DefaultErrorHandler {

	public IdempotentErrorHandler(ConsumerRecordRecoverer recoverer, BackOff backOff) {
		super(recoverer, backOff);
	}

	@Override
	public void handleBatch(Exception thrownException, ConsumerRecords<?, ?> data, Consumer<?, ?> consumer,
			MessageListenerContainer container, Runnable invokeListener) {
		IdempotencyInProgressException inProgress = find(thrownException, IdempotencyInProgressException.class);
		if (inProgress != null) {
			redeliverLater(data, consumer, container, inProgress);
		}
		super.handleBatch(translate(thrownException), data, consumer, container, invokeListener);
	}

	/**
	 * A batch with a key in progress elsewhere: back to its first offsets, wait one
	 * {@link InProgressBackOff} step and let the next poll deliver it again, without counting an
	 * attempt. The exception keeps the container from committing the batch.
	 */
	private static void redeliverLater(ConsumerRecords<?, ?> data, Consumer<?, ?> consumer,
			MessageListenerContainer container, IdempotencyInProgressException inProgress) {
		data.partitions().forEach((partition) -> consumer.seek(partition, data.records(partition).get(0).offset()));
		try {
			ListenerUtils.stoppableSleep(container, InProgressBackOff.interval(inProgress.getLease()).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
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
