package dev.idempotency.kafka;

import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.EOSMode;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * What the after-rollback processor does with message, non-retryable, in-progress and
 * infrastructure failures of a rolled-back Kafka transaction: which are counted and recovered (with
 * the offset sent to the transaction), which seek back and wait.
 */
class IdempotentAfterRollbackProcessorTests {

	private static final TopicPartition PARTITION = new TopicPartition("orders", 0);

	private final List<ConsumerRecord<?, ?>> recovered = new CopyOnWriteArrayList<>();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final AtomicBoolean storeUp = new AtomicBoolean();

	private final AtomicInteger probes = new AtomicInteger();

	private final FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
		this.probes.incrementAndGet();
		if (!this.storeUp.get()) {
			throw new IllegalStateException("store down");
		}
	}, new FailClosedSettings(Duration.ofMillis(5), Duration.ofMillis(20)), () -> List.of(new DeliveryListener() {

		@Override
		public void onListenerPaused(String listener, Throwable cause) {
			IdempotentAfterRollbackProcessorTests.this.events.add("paused " + listener);
		}

		@Override
		public void onListenerResumed(String listener, Duration paused) {
			IdempotentAfterRollbackProcessorTests.this.events.add("resumed " + listener);
		}

	}));

	private final ConsumerRecordRecoverer recoverer = (record, ex) -> this.recovered.add(record);

	@SuppressWarnings("unchecked")
	private final Consumer<Object, Object> consumer = mock(Consumer.class);

	private final MessageListenerContainer container = mock(MessageListenerContainer.class);

	private final KafkaOperations<?, ?> kafka = mock(KafkaOperations.class);

	private final ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 0, 42, "k", "v");

	@BeforeEach
	void container() {
		when(this.container.isRunning()).thenReturn(true);
		when(this.container.getMainListenerId()).thenReturn("orders");
		when(this.container.getListenerId()).thenReturn("orders-0");
		when(this.container.getContainerProperties()).thenReturn(new ContainerProperties("orders"));
		when(this.kafka.isTransactional()).thenReturn(true);
		FailClosedPause.deliveryGotThrough();
	}

	@Test
	void aMessageFailureIsRetriedThenRecoveredWithItsOffsetSentToTheTransaction() {
		IdempotentAfterRollbackProcessor<Object, Object> processor = processor(this.circuits);
		process(processor, new IllegalStateException("poison"));
		assertThat(this.recovered).isEmpty();
		verify(this.consumer).seek(PARTITION, 42);
		process(processor, new IllegalStateException("poison"));
		assertThat(this.recovered).containsExactly(this.record);
		verify(this.kafka).sendOffsetsToTransaction(
				argThat((Map<TopicPartition, OffsetAndMetadata> offsets) -> offsets.get(PARTITION).offset() == 43),
				any());
		assertThat(processor.isProcessInTransaction()).isTrue();
	}

	@Test
	void aNonRetryableFailureIsRecoveredAtOnce() {
		process(processor(this.circuits), new InvalidIdempotencyKeyException("no key"));
		assertThat(this.recovered).containsExactly(this.record);
	}

	@Test
	void aKeyInProgressIsNeverRecoveredNorAPause() {
		IdempotentAfterRollbackProcessor<Object, Object> processor = processor(this.circuits);
		IdempotencyInProgressException inProgress = new IdempotencyInProgressException(
				new IdempotencyKey("orders", "k"), Duration.ofMillis(1));
		for (int i = 0; i < 5; i++) {
			process(processor, inProgress);
		}
		assertThat(this.recovered).isEmpty();
		assertThat(this.circuits.circuits()).isEmpty();
		verify(this.kafka, never()).sendOffsetsToTransaction(anyMap(), any());
	}

	@Test
	void infrastructureFailuresSeekBackAndPauseWithoutEverRecovering() {
		IdempotentAfterRollbackProcessor<Object, Object> processor = processor(this.circuits);
		for (int i = 0; i < 10; i++) {
			process(processor, outage());
		}
		verify(this.consumer, times(10)).seek(PARTITION, 42);
		assertThat(this.recovered).isEmpty();
		assertThat(this.probes).hasValueGreaterThanOrEqualTo(10);
		assertThat(this.events).containsExactly("paused orders");
		verify(this.kafka, never()).sendOffsetsToTransaction(anyMap(), any());
		this.storeUp.set(true);
		process(processor, new IllegalStateException("poison"));
		assertThat(this.events).as("a failure that got through resumes").containsExactly("paused orders",
				"resumed orders");
	}

	@Test
	void afterTheErrorHandlerWaitedForAnOutageTheProcessorDoesNotWaitAgain() {
		IdempotentErrorHandler handler = (IdempotentErrorHandler) KafkaErrorHandlers.retryThenRecover(this.recoverer, 2,
				Duration.ofMillis(1), 1.0, Duration.ofMillis(1), this.circuits);
		RuntimeException rolledBack = assertThatRuntimeException()
			.isThrownBy(() -> handler.handleRemaining(outage(), List.of(this.record), this.consumer, this.container))
			.actual();
		int probesByTheErrorHandler = this.probes.get();
		assertThat(probesByTheErrorHandler).isPositive();
		process(processor(this.circuits), rolledBack);
		assertThat(this.probes).hasValue(probesByTheErrorHandler);
		assertThat(this.recovered).isEmpty();
		assertThat(this.events).containsExactly("paused orders");
	}

	@Test
	void aBatchThatFailedOnTheInfrastructureIsSoughtBackToItsFirstRecordsAndNeverRecovered() {
		IdempotentAfterRollbackProcessor<Object, Object> processor = processor(this.circuits);
		TopicPartition other = new TopicPartition("orders", 1);
		List<ConsumerRecord<Object, Object>> first = List.of(new ConsumerRecord<>("orders", 0, 7, "a", "1"),
				new ConsumerRecord<>("orders", 0, 8, "b", "2"));
		List<ConsumerRecord<Object, Object>> second = List.of(new ConsumerRecord<>("orders", 1, 3, "c", "3"));
		ConsumerRecords<Object, Object> batch = new ConsumerRecords<>(Map.of(PARTITION, first, other, second),
				Map.of());
		List<ConsumerRecord<Object, Object>> recordList = List.of(first.get(0), first.get(1), second.get(0));
		for (int i = 0; i < 5; i++) {
			processor.processBatch(batch, recordList, this.consumer, this.container, outage(), true, EOSMode.V2);
		}
		verify(this.consumer, times(5)).seek(PARTITION, 7);
		verify(this.consumer, times(5)).seek(other, 3);
		assertThat(this.recovered).isEmpty();
		assertThat(this.events).containsExactly("paused orders");
		IdempotencyInProgressException inProgress = new IdempotencyInProgressException(
				new IdempotencyKey("orders", "k"), Duration.ofMillis(1));
		processor.processBatch(batch, recordList, this.consumer, this.container, inProgress, true, EOSMode.V2);
		assertThat(this.events).as("a key in progress got through to the store").containsExactly("paused orders",
				"resumed orders");
		verify(this.consumer, times(6)).seek(PARTITION, 7);
		assertThat(this.recovered).isEmpty();
	}

	@Test
	void withFailClosedOffAnInfrastructureFailureIsAnAttemptLikeAnyOther() {
		IdempotentAfterRollbackProcessor<Object, Object> processor = processor(null);
		assertThat(processor.isFailClosed()).isFalse();
		process(processor, outage());
		process(processor, outage());
		assertThat(this.recovered).containsExactly(this.record);
		verify(this.container, never()).getMainListenerId();
	}

	private IdempotentAfterRollbackProcessor<Object, Object> processor(@Nullable FailClosedCircuits circuits) {
		return KafkaErrorHandlers.retryThenRecoverAfterRollback(this.recoverer, this.kafka, 2, Duration.ofMillis(1),
				1.0, Duration.ofMillis(1), circuits);
	}

	private void process(IdempotentAfterRollbackProcessor<Object, Object> processor, Exception failure) {
		processor.process(List.of(this.record), this.consumer, this.container, failure, true, EOSMode.V2);
	}

	private static Exception outage() {
		return new CannotCreateTransactionException("Could not open JDBC Connection",
				new SQLTransientConnectionException("Connection is not available"));
	}

}
