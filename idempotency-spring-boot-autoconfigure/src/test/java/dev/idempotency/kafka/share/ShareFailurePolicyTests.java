package dev.idempotency.kafka.share;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.kafka.DeadLetterRecoverer;
import dev.idempotency.kafka.share.ShareDecision.Reason;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * What {@link ShareFailurePolicy} decides for each kind of failure and delivery count.
 */
class ShareFailurePolicyTests {

	private static final int LIMIT = 3;

	private final List<ConsumerRecord<?, ?>> deadLettered = new ArrayList<>();

	private boolean deadLetterFails;

	private final FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
	}, new FailClosedSettings(Duration.ofSeconds(1), Duration.ofSeconds(1)), List::of);

	private final ShareFailurePolicy policy = new ShareFailurePolicy(new RecordingDeadLetters(), this.circuits,
			() -> LIMIT);

	@Test
	void messageFailureBelowTheLimitIsReleased() {
		assertThat(this.policy.decide(record(LIMIT - 1), new IllegalStateException("boom")))
			.isEqualTo(new ShareDecision(AcknowledgeType.RELEASE, Reason.FAILED));
		assertThat(this.deadLettered).isEmpty();
	}

	@Test
	void messageFailureAtTheBrokersLastAttemptIsDeadLetteredAndRejected() {
		assertThat(this.policy.decide(record(LIMIT), new IllegalStateException("boom")))
			.isEqualTo(new ShareDecision(AcknowledgeType.REJECT, Reason.ATTEMPTS_EXHAUSTED));
		assertThat(this.deadLettered).hasSize(1);
	}

	@Test
	void badKeyIsDeadLetteredAndRejectedAtTheFirstAttempt() {
		assertThat(this.policy.decide(record(1), new InvalidIdempotencyKeyException("blank")))
			.isEqualTo(new ShareDecision(AcknowledgeType.REJECT, Reason.BAD_INPUT));
		assertThat(this.deadLettered).hasSize(1);
	}

	@Test
	void notRetryableFailureIsDeadLetteredAndRejectedAtOnce() {
		assertThat(this.policy.decide(record(1), new ClassCastException("no")))
			.isEqualTo(new ShareDecision(AcknowledgeType.REJECT, Reason.NOT_RETRYABLE));
	}

	@Test
	void outageIsReleasedAndNeverDeadLetteredEvenAtTheLastAttempt() {
		CannotCreateTransactionException outage = new CannotCreateTransactionException("down");
		assertThat(this.policy.isOutage(outage)).isTrue();
		assertThat(this.policy.decide(record(LIMIT), outage))
			.isEqualTo(new ShareDecision(AcknowledgeType.RELEASE, Reason.OUTAGE));
		assertThat(this.deadLettered).isEmpty();
	}

	@Test
	void keyInProgressElsewhereIsReleasedAndIsNoOutage() {
		IdempotencyInProgressException inProgress = new IdempotencyInProgressException(
				new IdempotencyKey("points", "order-1"), Duration.ofSeconds(1));
		assertThat(this.policy.isOutage(inProgress)).isFalse();
		assertThat(this.policy.decide(record(1), inProgress))
			.isEqualTo(new ShareDecision(AcknowledgeType.RELEASE, Reason.IN_PROGRESS));
	}

	@Test
	void failedDeadLetterPublicationReleasesInsteadOfRejecting() {
		this.deadLetterFails = true;
		assertThat(this.policy.decide(record(LIMIT), new IllegalStateException("boom")))
			.isEqualTo(new ShareDecision(AcknowledgeType.RELEASE, Reason.DEAD_LETTER_FAILED));
	}

	@Test
	void withoutADeadLetterTopicRejectsWithoutPublishing() {
		ShareFailurePolicy withoutDeadLetters = new ShareFailurePolicy(null, null, () -> LIMIT);
		assertThat(withoutDeadLetters.decide(record(LIMIT), new IllegalStateException("boom")))
			.isEqualTo(new ShareDecision(AcknowledgeType.REJECT, Reason.ATTEMPTS_EXHAUSTED));
		assertThat(withoutDeadLetters.isOutage(new CannotCreateTransactionException("down"))).isFalse();
	}

	private static ConsumerRecord<String, String> record(int deliveryCount) {
		return new ConsumerRecord<>("orders", 0, 7, 0, TimestampType.CREATE_TIME, 0, 0, "key", "value",
				new RecordHeaders(), Optional.empty(), Optional.of((short) deliveryCount));
	}

	private final class RecordingDeadLetters extends DeadLetterRecoverer {

		@SuppressWarnings("unchecked")
		RecordingDeadLetters() {
			super(new KafkaTemplate<>(mock(ProducerFactory.class)), ".DLT", List::of);
		}

		@Override
		public void accept(ConsumerRecord<?, ?> record, Exception exception) {
			if (ShareFailurePolicyTests.this.deadLetterFails) {
				throw new IllegalStateException("broker down");
			}
			ShareFailurePolicyTests.this.deadLettered.add(record);
		}

	}

}
