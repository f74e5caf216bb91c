package dev.idempotency.kafka;

import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.KafkaException;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * What the Kafka error handler does with infrastructure, message and in-progress failures, with
 * fail-closed on and off: which failures seek back and pause, which count attempts and are
 * recovered.
 */
class IdempotentErrorHandlerFailClosedTests {

	private static final TopicPartition PARTITION = new TopicPartition("orders", 0);

	private final List<ConsumerRecord<?, ?>> recovered = new CopyOnWriteArrayList<>();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final AtomicBoolean storeUp = new AtomicBoolean();

	private final FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
		if (!this.storeUp.get()) {
			throw new IllegalStateException("store down");
		}
	}, new FailClosedSettings(Duration.ofMillis(5), Duration.ofMillis(20)), () -> List.of(new DeliveryListener() {

		@Override
		public void onListenerPaused(String listener, Throwable cause) {
			IdempotentErrorHandlerFailClosedTests.this.events.add("paused " + listener);
		}

		@Override
		public void onListenerResumed(String listener, Duration paused) {
			IdempotentErrorHandlerFailClosedTests.this.events.add("resumed " + listener);
		}

	}));

	private final ConsumerRecordRecoverer recoverer = (record, ex) -> this.recovered.add(record);

	private final Consumer<?, ?> consumer = mock(Consumer.class);

	private final MessageListenerContainer container = mock(MessageListenerContainer.class);

	private final ConsumerRecord<?, ?> record = new ConsumerRecord<>("orders", 0, 42, "k", "v");

	@BeforeEach
	void container() {
		when(this.container.isRunning()).thenReturn(true);
		when(this.container.getMainListenerId()).thenReturn("orders");
		when(this.container.getListenerId()).thenReturn("orders-0");
		when(this.container.getContainerProperties()).thenReturn(new ContainerProperties("orders"));
		FailClosedPause.deliveryGotThrough();
	}

	@Test
	void infrastructureFailuresSeekBackAndPauseWithoutEverRecovering() {
		DefaultErrorHandler handler = failClosedHandler();
		for (int i = 0; i < 10; i++) {
			assertThatRecordIsRetried(() -> handleRemaining(handler, outage()));
		}
		verify(this.consumer, times(10)).seek(PARTITION, 42);
		assertThat(this.recovered).isEmpty();
		assertThat(this.circuits.circuit("orders").isOpen()).isTrue();
		assertThat(this.events).containsExactly("paused orders");
	}

	@Test
	void theNextDeliveryThatGetsThroughResumesTheListener() {
		DefaultErrorHandler handler = failClosedHandler();
		assertThatRecordIsRetried(() -> handleRemaining(handler, outage()));
		this.storeUp.set(true);
		new KafkaDeliveryContextInterceptor().success(null, null);
		assertThat(this.circuits.circuit("orders").isOpen()).isFalse();
		assertThat(this.events).containsExactly("paused orders", "resumed orders");
	}

	@Test
	void aMessageFailureAfterAnOutageResumesAndIsRecoveredAfterItsOwnAttempts() {
		DefaultErrorHandler handler = failClosedHandler();
		for (int i = 0; i < 3; i++) {
			assertThatRecordIsRetried(() -> handleRemaining(handler, outage()));
		}
		assertThatRecordIsRetried(() -> handleRemaining(handler, new IllegalStateException("poison")));
		assertThat(this.events).containsExactly("paused orders", "resumed orders");
		assertThat(this.recovered).isEmpty();
		handleRemaining(handler, new IllegalStateException("poison"));
		assertThat(this.recovered).containsExactly(this.record);
	}

	@Test
	void aKeyInProgressIsNotAPause() {
		DefaultErrorHandler handler = failClosedHandler();
		IdempotencyInProgressException inProgress = new IdempotencyInProgressException(
				new IdempotencyKey("orders", "k"), Duration.ofMillis(1));
		for (int i = 0; i < 5; i++) {
			assertThatRecordIsRetried(() -> handleRemaining(handler, inProgress));
		}
		assertThat(this.recovered).isEmpty();
		assertThat(this.events).isEmpty();
		assertThat(this.circuits.circuits()).isEmpty();
	}

	@Test
	void handleOneKeepsTheRecordInHandOnAnInfrastructureFailure() {
		DefaultErrorHandler handler = failClosedHandler();
		for (int i = 0; i < 5; i++) {
			assertThat(handler.handleOne(outage(), this.record, this.consumer, this.container)).isFalse();
		}
		assertThat(this.recovered).isEmpty();
		assertThat(this.events).containsExactly("paused orders");
	}

	@Test
	void aBatchThatFailedOnTheInfrastructureIsSoughtBackToItsFirstRecordsAndNeverRecovered() {
		DefaultErrorHandler handler = failClosedHandler();
		TopicPartition other = new TopicPartition("orders", 1);
		ConsumerRecords<Object, Object> batch = new ConsumerRecords<>(java.util.Map.of(PARTITION,
				List.of(new ConsumerRecord<>("orders", 0, 7, "a", "1"), new ConsumerRecord<>("orders", 0, 8, "b", "2")),
				other, List.of(new ConsumerRecord<>("orders", 1, 3, "c", "3"))), java.util.Map.of());
		for (int i = 0; i < 5; i++) {
			assertThatExceptionOfType(KafkaException.class)
				.isThrownBy(() -> handler.handleBatch(outage(), batch, this.consumer, this.container, () -> {
					throw new AssertionError("a paused batch is not retried in the error handler");
				}))
				.withMessageContaining("fail-closed")
				.satisfies((ex) -> assertThat(ReflectionTestUtils.getField(ex, "logLevel"))
					.isEqualTo(KafkaException.Level.DEBUG));
		}
		verify(this.consumer, times(5)).seek(PARTITION, 7);
		verify(this.consumer, times(5)).seek(other, 3);
		assertThat(this.recovered).isEmpty();
		assertThat(this.events).containsExactly("paused orders");
		new KafkaBatchDeliveryContextInterceptor().success(batch, null);
		assertThat(this.events).containsExactly("paused orders", "resumed orders");
	}

	@Test
	void withFailClosedOffAnInfrastructureFailureIsAnAttemptLikeAnyOther() {
		DefaultErrorHandler handler = KafkaErrorHandlers.retryThenRecover(this.recoverer, 2, Duration.ofMillis(1),
				1.0, Duration.ofMillis(1));
		assertThatRecordIsRetried(() -> handleRemaining(handler, outage()));
		handleRemaining(handler, outage());
		assertThat(this.recovered).containsExactly(this.record);
		verify(this.container, never()).getMainListenerId();
		verify(this.consumer, times(1)).seek(any(TopicPartition.class), anyLong());
	}

	private DefaultErrorHandler failClosedHandler() {
		return KafkaErrorHandlers.retryThenRecover(this.recoverer, 2, Duration.ofMillis(1), 1.0, Duration.ofMillis(1),
				this.circuits);
	}

	private void handleRemaining(DefaultErrorHandler handler, Exception failure) {
		handler.handleRemaining(failure, List.of(this.record), this.consumer, this.container);
	}

	/** Sought back and not recovered: spring-kafka's exception for a record in retry. */
	private static void assertThatRecordIsRetried(ThrowingCallable handling) {
		assertThatRuntimeException().isThrownBy(handling).withMessage("Record in retry and not yet recovered");
	}

	private static Exception outage() {
		return new CannotCreateTransactionException("Could not open JDBC Connection",
				new SQLTransientConnectionException("Connection is not available, request timed out after 1000ms"));
	}

}
