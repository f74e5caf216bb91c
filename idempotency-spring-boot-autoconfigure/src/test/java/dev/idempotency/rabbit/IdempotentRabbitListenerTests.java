package dev.idempotency.rabbit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.Channel;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;
import org.springframework.dao.DataAccessResourceFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

/**
 * Tests for {@link IdempotentRabbitListener}: the decisions about one delivery, on a mocked channel
 * (the broker's side is in the integration tests).
 */
class IdempotentRabbitListenerTests {

	private static final long TAG = 7;

	private final Channel channel = mock(Channel.class);

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final RabbitFailurePolicy policy = new RabbitFailurePolicy(
			new RabbitRetrySettings(1, Duration.ofMillis(10), 1.0, Duration.ofMillis(10)));

	private final RabbitDeadLetters deadLetters = new RabbitDeadLetters(mock(ConnectionFactory.class),
			(queue) -> null, Duration.ofSeconds(1), List::of);

	IdempotentRabbitListenerTests() {
		given(this.channel.isOpen()).willReturn(true);
	}

	@Test
	void aKeyInProgressElsewhereWaitsWithoutSpendingAnAttempt() throws Exception {
		AtomicInteger calls = new AtomicInteger();
		listener((message, channel) -> {
			if (calls.incrementAndGet() <= 3) {
				throw new IdempotencyInProgressException(new IdempotencyKey("orders", "o-1"), Duration.ZERO);
			}
		}, null).onMessage(message(), this.channel);
		assertThat(calls).hasValue(4);
		verify(this.channel).basicAck(TAG, false);
		verify(this.channel, never()).basicNack(anyLong(), anyBoolean(), anyBoolean());
	}

	@Test
	void anInfrastructureFailureHoldsTheDeliveryAndRetriesItWhenTheStoreAnswers() throws Exception {
		AtomicInteger probes = new AtomicInteger();
		FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
			if (probes.incrementAndGet() < 3) {
				throw new DataAccessResourceFailureException("still down");
			}
		}, new FailClosedSettings(Duration.ofMillis(10), Duration.ofSeconds(5)), List::of);
		AtomicInteger calls = new AtomicInteger();
		listener((message, channel) -> {
			if (calls.incrementAndGet() == 1) {
				throw new DataAccessResourceFailureException("database down");
			}
		}, circuits).onMessage(message(), this.channel);
		assertThat(calls).as("attempts: the outage spent none of the one allowed").hasValue(2);
		assertThat(probes.get()).isGreaterThanOrEqualTo(3);
		assertThat(circuits.circuit("orders").isOpen()).as("resumed").isFalse();
		verify(this.channel).basicAck(TAG, false);
		verify(this.channel, never()).basicNack(anyLong(), anyBoolean(), anyBoolean());
	}

	@Test
	void aDeliveryHeldWhenTheContainerStopsIsRequeuedNotDeadLettered() throws Exception {
		FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
			this.running.set(false);
			throw new DataAccessResourceFailureException("still down");
		}, new FailClosedSettings(Duration.ofMillis(10), Duration.ofSeconds(5)), List::of);
		listener((message, channel) -> {
			throw new DataAccessResourceFailureException("database down");
		}, circuits).onMessage(message(), this.channel);
		verify(this.channel).basicReject(TAG, true);
		verify(this.channel, never()).basicAck(anyLong(), anyBoolean());
		verify(this.channel, never()).basicNack(anyLong(), anyBoolean(), anyBoolean());
	}

	@Test
	void anAcknowledgementLostWithItsChannelIsNeitherRetriedNorSettledElsewhere() throws Exception {
		AtomicInteger calls = new AtomicInteger();
		IdempotentRabbitListener listener = listener((message, channel) -> {
			calls.incrementAndGet();
			// The commit went through; then the channel closes before the acknowledgement.
			given(this.channel.isOpen()).willReturn(false);
			DeliveryContext delivery = DeliveryContextHolder.current();
			delivery.acknowledger().acknowledge();
		}, null);
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> listener.onMessage(message(), this.channel));
		assertThat(calls).hasValue(1);
		verify(this.channel, never()).basicAck(anyLong(), anyBoolean());
		verify(this.channel, never()).basicReject(anyLong(), anyBoolean());
		verify(this.channel, never()).basicNack(anyLong(), anyBoolean(), anyBoolean());
	}

	@Test
	void aFailureAfterTheLastAttemptIsRejectedToTheDeadLetterExchangeWhenItsRouteIsUnknown() throws Exception {
		listener((message, channel) -> {
			throw new IllegalStateException("business");
		}, null).onMessage(message(), this.channel);
		verify(this.channel).basicNack(TAG, false, false);
		verify(this.channel, never()).basicAck(anyLong(), anyBoolean());
	}

	@Test
	void theDeliveryContextIsClearedAfterEachDelivery() throws Exception {
		listener((message, channel) -> assertThat(DeliveryContextHolder.current()).isNotNull(), null)
			.onMessage(message(), this.channel);
		assertThat(DeliveryContextHolder.current()).isNull();
	}

	private IdempotentRabbitListener listener(ChannelAwareMessageListener delegate, FailClosedCircuits circuits) {
		return new IdempotentRabbitListener(delegate, "orders", this.running::get,
				new RabbitDeliveryContexts("message-id"), this.policy, this.deadLetters, circuits);
	}

	private static Message message() {
		MessageProperties properties = new MessageProperties();
		properties.setDeliveryTag(TAG);
		properties.setMessageId("m-1");
		properties.setConsumerQueue("orders");
		return new Message(new byte[0], properties);
	}

}
