package dev.idempotency.outbox;

import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.FailureKind;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * When a failed row is sent again, and whether it dies. A failure its sender calls the message's
 * ({@link OutboxSender#isMessageFailure}) counts as an attempt: after {@code maxAttempts} of them the
 * row is dead, before that it is due after the back-off of its attempt. Any other failure (the
 * broker's, the network's, the relay's own send timeout) counts nothing: the row is due after a
 * back-off that grows with each round of its sender that failed that way and reached nothing, and is
 * reset by the first message of that sender that gets through.
 */
final class OutboxRetryPolicy {

	// The relay's category: log levels users set for OutboxRelay keep applying.
	private static final Log logger = LogFactory.getLog(OutboxRelay.class);

	/** Back-off steps are counted up to this; far beyond where any sensible back-off reaches its maximum. */
	private static final int MAX_BACK_OFF_STEPS = 64;

	private final int maxAttempts;

	private final BackOff backOff;

	private final Clock clock;

	private final FailureClassifier classifier;

	/** Per sender scheme: consecutive rounds whose sends all failed with the broker's or network's fault. */
	private final Map<String, Integer> outageRounds = new ConcurrentHashMap<>();

	/**
	 * Creates a policy.
	 * @param maxAttempts message failures of a row before it is dead, at least 1
	 * @param backOff delays between attempts
	 * @param clock the clock of due times
	 * @param classifier the classification every adapter shares: what it calls the
	 * infrastructure's is never the message's, whatever the sender says
	 */
	OutboxRetryPolicy(int maxAttempts, BackOff backOff, Clock clock, FailureClassifier classifier) {
		this.maxAttempts = maxAttempts;
		this.backOff = backOff;
		this.clock = clock;
		this.classifier = classifier;
	}

	int maxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * Whether a failure was the message's: the sender says so and the shared classifier does not call
	 * it the infrastructure's. A sender or classifier that cannot tell (throws) counts it as the
	 * message's.
	 */
	boolean isMessageFailure(OutboxSender sender, Throwable cause) {
		try {
			return sender.isMessageFailure(cause) && this.classifier.classify(cause) != FailureKind.INFRASTRUCTURE;
		}
		catch (RuntimeException ex) {
			logger.warn("OutboxSender " + sender + " could not classify a failure; counting it as an attempt", ex);
			return true;
		}
	}

	/** Whether one more message failure makes the row dead. */
	boolean isLastAttempt(OutboxMessage message) {
		return message.attempts() + 1 >= this.maxAttempts;
	}

	/** When a row whose send was the message's failure is due again. */
	Instant nextAttempt(OutboxMessage message) {
		return this.clock.instant().plusMillis(backOff(message.attempts() + 1));
	}

	/** When a row whose send failed with its sender's outage is due again. */
	Instant nextAttemptAfterOutage(OutboxMessage message, OutboxSender sender) {
		int steps = Math.min(MAX_BACK_OFF_STEPS,
				message.attempts() + Math.max(1, this.outageRounds.getOrDefault(sender.scheme(), 1)));
		return this.clock.instant().plusMillis(backOff(steps));
	}

	/**
	 * Records a round's outcome per sender: a sender that got a message through ends its outage;
	 * one that reached nothing extends it.
	 * @param sentBy the sender of every routed message of the round
	 * @param sent the messages the broker acknowledged
	 * @param outageFailures the messages that failed without their fault
	 */
	void roundEnded(Map<OutboxMessage, OutboxSender> sentBy, List<OutboxMessage> sent,
			Collection<OutboxMessage> outageFailures) {
		sent.forEach((message) -> this.outageRounds.remove(sentBy.get(message).scheme()));
		outageFailures.stream()
			.map((message) -> sentBy.get(message).scheme())
			.distinct()
			.filter((scheme) -> sent.stream().noneMatch((message) -> sentBy.get(message).scheme().equals(scheme)))
			.forEach((scheme) -> this.outageRounds.merge(scheme, 1, (rounds, one) -> Math.min(rounds + one,
					MAX_BACK_OFF_STEPS)));
	}

	/** The back-off before attempt {@code failedAttempts + 1}, in milliseconds. */
	private long backOff(int failedAttempts) {
		BackOffExecution execution = this.backOff.start();
		long delay = 0;
		for (int i = 0; i < failedAttempts; i++) {
			long next = execution.nextBackOff();
			if (next == BackOffExecution.STOP) {
				break;
			}
			delay = next;
		}
		return delay;
	}

}
