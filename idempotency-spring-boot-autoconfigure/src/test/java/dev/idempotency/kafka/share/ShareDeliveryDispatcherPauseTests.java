package dev.idempotency.kafka.share;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.kafka.share.ShareDecision.Reason;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * {@link ShareDeliveryDispatcher} during a fail-closed pause of its share container: the broker
 * archives a record released at its last delivery, and a record released while another consumer
 * of the container still polls is acquired again at once with one more delivery.
 */
class ShareDeliveryDispatcherPauseTests {

	private static final int ATTEMPT_LIMIT = 3;

	private final AtomicBoolean storeDown = new AtomicBoolean(true);

	private final FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
		if (this.storeDown.get()) {
			throw new DataAccessResourceFailureException("store down");
		}
	}, new FailClosedSettings(Duration.ofMillis(5), Duration.ofMillis(20)), List::of);

	private final ShareKafkaMessageListenerContainer<?, ?> container = mock(ShareKafkaMessageListenerContainer.class);

	private final AtomicBoolean applicationRuns = new AtomicBoolean(true);

	private final ShareFetchPause pause = new ShareFetchPause(this.container, this.circuits.circuit("orders"),
			this.applicationRuns::get);

	private final AtomicInteger calls = new AtomicInteger();

	private final ShareDeliveryDispatcher dispatcher = new ShareDeliveryDispatcher(
			(MessageListener<Object, Object>) (record) -> this.calls.incrementAndGet(), "orders",
			new ShareFailurePolicy(null, this.circuits, () -> ATTEMPT_LIMIT), ShareLockRenewal.never(), this.pause,
			(group, decision) -> {
			}, this.applicationRuns::get);

	private final ShareConsumer<?, ?> consumer = mock(ShareConsumer.class);

	@AfterEach
	void stopThePause() {
		this.applicationRuns.set(false);
	}

	@Test
	void aRecordAtItsLastAttemptFetchedDuringAPauseIsHeldUntilTheStoreAnswersThenRun() {
		given(this.container.isRunning()).willReturn(false);
		this.pause.pause(new DataAccessResourceFailureException("store down"));
		assertThat(this.pause.isPaused()).isTrue();
		CompletableFuture<Void> delivery = CompletableFuture
			.runAsync(() -> this.dispatcher.onShareRecord(record(ATTEMPT_LIMIT), null, this.consumer));
		// Longer than fail-closed's max-wait (20 ms): the hold does not end with a wait
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !delivery.isDone());
		assertThat(this.calls).hasValue(0);
		this.storeDown.set(false);
		await().atMost(Duration.ofSeconds(5)).until(delivery::isDone);
		assertThat(delivery).isCompleted();
		assertThat(this.calls).hasValue(1);
	}

	@Test
	void aRecordReleasedDuringAPauseWaitsUntilNoOtherConsumerOfTheContainerPolls() {
		given(this.container.isRunning()).willReturn(false);
		Thread stillPolling = new Thread(() -> {
		});
		this.pause.consumerStarted(stillPolling);
		this.pause.pause(new DataAccessResourceFailureException("store down"));
		CompletableFuture<Void> delivery = CompletableFuture.runAsync(() -> {
			this.pause.consumerStarted(Thread.currentThread());
			this.dispatcher.onShareRecord(record(1), null, this.consumer);
		});
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !delivery.isDone());
		this.pause.consumerStopping(stillPolling);
		Throwable released = catchThrowable(delivery::join);
		assertThat(released).isInstanceOf(CompletionException.class)
			.cause()
			.isInstanceOfSatisfying(ShareDecisionException.class, (decision) -> {
				assertThat(decision.decision().type()).isEqualTo(AcknowledgeType.RELEASE);
				assertThat(decision.decision().reason()).isEqualTo(Reason.PAUSED);
			});
		assertThat(this.calls).hasValue(0);
	}

	@Test
	void aReleaseDuringAPauseDoesNotWaitForAConsumerThatHoldsARecord() {
		given(this.container.isRunning()).willReturn(false);
		this.pause.pause(new DataAccessResourceFailureException("store down"));
		CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
			this.pause.consumerStarted(Thread.currentThread());
			this.dispatcher.onShareRecord(record(ATTEMPT_LIMIT), null, this.consumer);
		});
		await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> !holder.isDone());
		CompletableFuture<Void> delivery = CompletableFuture.runAsync(() -> {
			this.pause.consumerStarted(Thread.currentThread());
			this.dispatcher.onShareRecord(record(1), null, this.consumer);
		});
		await().atMost(Duration.ofSeconds(2)).until(delivery::isDone);
		assertThat(catchThrowable(delivery::join)).cause().isInstanceOf(ShareDecisionException.class);
		assertThat(holder).isNotDone();
	}

	private static ConsumerRecord<Object, Object> record(int deliveryCount) {
		return new ConsumerRecord<>("orders", 0, 7, 0, TimestampType.CREATE_TIME, 0, 0, "key", "order-7:1",
				new RecordHeaders(), Optional.empty(), Optional.of((short) deliveryCount));
	}

}
