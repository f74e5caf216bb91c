package dev.idempotency.rabbit;

import java.time.Duration;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.listener.ListenerExecutionFailedException;
import org.springframework.amqp.support.converter.MessageConversionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RabbitFailurePolicy}.
 */
class RabbitFailurePolicyTests {

	private static final IdempotencyKey KEY = new IdempotencyKey("orders", "o-1");

	private final RabbitFailurePolicy policy = new RabbitFailurePolicy(
			new RabbitRetrySettings(4, Duration.ofMillis(100), 3.0, Duration.ofMillis(500)));

	@Test
	void aFirstDeliveryGetsEveryAttempt() {
		assertThat(this.policy.attemptsOf(message(null))).isEqualTo(4);
	}

	@Test
	void aQuorumQueuesEarlierDeliveriesCountAgainstTheAttemptsDownToOne() {
		assertThat(this.policy.attemptsOf(message(1L))).isEqualTo(3);
		assertThat(this.policy.attemptsOf(message(3L))).isEqualTo(1);
		assertThat(this.policy.attemptsOf(message(20L))).isEqualTo(1);
	}

	@Test
	void theBackOffGrowsUpToItsLongest() {
		assertThat(this.policy.backOffAfter(1)).isEqualTo(Duration.ofMillis(100));
		assertThat(this.policy.backOffAfter(2)).isEqualTo(Duration.ofMillis(300));
		assertThat(this.policy.backOffAfter(3)).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void badInputAndNotRetryableFailuresAreDeadLetteredAtOnceThroughTheContainersWrapper() {
		assertThat(this.policy.notRetryableReason(
				new ListenerExecutionFailedException("failed", new MessageConversionException("unreadable"))))
			.isEqualTo("bad-input");
		assertThat(this.policy.notRetryableReason(
				new ListenerExecutionFailedException("failed", new InvalidIdempotencyKeyException("no key"))))
			.isEqualTo("not-retryable");
		assertThat(this.policy.notRetryableReason(new IllegalStateException("business"))).isNull();
	}

	@Test
	void aKeyInProgressWaitsATenthOfTheLeaseWithinBounds() {
		IdempotencyInProgressException inProgress = RabbitFailurePolicy.inProgress(new ListenerExecutionFailedException(
				"failed", new IdempotencyInProgressException(KEY, Duration.ofSeconds(10))));
		assertThat(inProgress).isNotNull();
		assertThat(RabbitFailurePolicy.inProgressInterval(inProgress)).isEqualTo(Duration.ofSeconds(1));
		assertThat(RabbitFailurePolicy.inProgressInterval(new IdempotencyInProgressException(KEY, Duration.ZERO)))
			.isEqualTo(Duration.ofMillis(100));
		assertThat(RabbitFailurePolicy
			.inProgressInterval(new IdempotencyInProgressException(KEY, Duration.ofMinutes(5))))
			.isEqualTo(Duration.ofSeconds(5));
	}

	private static Message message(Long deliveryCount) {
		MessageProperties properties = new MessageProperties();
		if (deliveryCount != null) {
			properties.setHeader("x-delivery-count", deliveryCount);
		}
		return new Message(new byte[0], properties);
	}

}
