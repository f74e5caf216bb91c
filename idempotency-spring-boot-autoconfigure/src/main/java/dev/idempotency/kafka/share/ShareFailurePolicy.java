package dev.idempotency.kafka.share;

import java.util.List;
import java.util.function.IntSupplier;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.NonRetryableIdempotencyException;
import dev.idempotency.kafka.DeadLetterRecoverer;
import dev.idempotency.kafka.share.ShareDecision.Reason;
import dev.idempotency.support.FailClosedCircuits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.support.converter.ConversionException;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;

/**
 * Decides what becomes of a share-group record whose listener failed, with the same classification
 * as the Kafka adapter's error handler, and the broker's delivery count in place of its retry
 * counter:
 * <ul>
 * <li>an infrastructure failure (fail-closed's classifier) releases the record, and the caller
 * pauses fetching; a key in progress elsewhere releases it;</li>
 * <li>bad input (a deserialization failure, a missing or failing key) and failures a retry cannot
 * fix are dead-lettered, then rejected at once;</li>
 * <li>any other failure releases the record until its delivery count reaches the attempt limit; the
 * last attempt dead-letters and rejects it, so the broker never archives it silently.</li>
 * </ul>
 * A dead-letter publication that fails releases the record instead of rejecting it.
 *
 * @since 0.2.0
 */
public final class ShareFailurePolicy {

	private static final Log logger = LogFactory.getLog(ShareFailurePolicy.class);

	private static final List<Class<? extends Throwable>> NOT_RETRYABLE = List.of(
			NonRetryableIdempotencyException.class, DeserializationException.class,
			MessageConversionException.class, ConversionException.class, MethodArgumentResolutionException.class,
			NoSuchMethodException.class, ClassCastException.class);

	private final @Nullable DeadLetterRecoverer deadLetters;

	private final @Nullable FailClosedCircuits circuits;

	private final IntSupplier attemptLimit;

	/**
	 * Creates the policy.
	 * @param deadLetters publishes to the dead-letter topic, or {@code null} to reject without one
	 * @param circuits fail-closed's circuits and classifier, or {@code null} when fail-closed is off
	 * @param attemptLimit the deliveries a record gets, the first included (the broker's limit)
	 */
	public ShareFailurePolicy(@Nullable DeadLetterRecoverer deadLetters, @Nullable FailClosedCircuits circuits,
			IntSupplier attemptLimit) {
		this.deadLetters = deadLetters;
		this.circuits = circuits;
		this.attemptLimit = attemptLimit;
	}

	/**
	 * Whether a failure is the infrastructure's, so that fetching pauses; a key in progress elsewhere
	 * is not (the store answered).
	 * @param failure the failure
	 * @return {@code true} for an outage, when fail-closed is on
	 */
	public boolean isOutage(Throwable failure) {
		return this.circuits != null && find(failure, IdempotencyInProgressException.class) == null
				&& this.circuits.isInfrastructure(failure);
	}

	/**
	 * Decides, and dead-letters the record when the decision is to reject it.
	 * @param record the record
	 * @param failure what its listener failed with
	 * @return the acknowledgement and why
	 */
	public ShareDecision decide(ConsumerRecord<?, ?> record, Exception failure) {
		if (isOutage(failure)) {
			return new ShareDecision(AcknowledgeType.RELEASE, Reason.OUTAGE);
		}
		if (find(failure, IdempotencyInProgressException.class) != null) {
			return new ShareDecision(AcknowledgeType.RELEASE, Reason.IN_PROGRESS);
		}
		if (find(failure, InvalidIdempotencyKeyException.class) != null
				|| find(failure, DeserializationException.class) != null) {
			return reject(record, failure, Reason.BAD_INPUT);
		}
		if (NOT_RETRYABLE.stream().anyMatch((type) -> find(failure, type) != null)) {
			return reject(record, failure, Reason.NOT_RETRYABLE);
		}
		if (deliveryCount(record) >= this.attemptLimit.getAsInt()) {
			return reject(record, failure, Reason.ATTEMPTS_EXHAUSTED);
		}
		return new ShareDecision(AcknowledgeType.RELEASE, Reason.FAILED);
	}

	/**
	 * Whether this is the record's last delivery attempt.
	 * @param record the record
	 * @return {@code true} when its delivery count has reached the attempt limit
	 */
	public boolean isLastAttempt(ConsumerRecord<?, ?> record) {
		return deliveryCount(record) >= this.attemptLimit.getAsInt();
	}

	private ShareDecision reject(ConsumerRecord<?, ?> record, Exception failure, Reason reason) {
		if (this.deadLetters != null) {
			try {
				this.deadLetters.accept(record, failure);
			}
			catch (RuntimeException ex) {
				logger.error("Could not dead-letter " + describe(record) + "; releasing it instead of rejecting it"
						+ (isLastAttempt(record) ? " (its last delivery attempt: the broker archives it)" : ""), ex);
				return new ShareDecision(AcknowledgeType.RELEASE, Reason.DEAD_LETTER_FAILED);
			}
		}
		else {
			logger.error("Rejecting " + describe(record) + " (" + reason.tagValue()
					+ ") with no dead-letter topic configured: "
					+ NestedExceptionUtils.getMostSpecificCause(failure));
		}
		return new ShareDecision(AcknowledgeType.REJECT, reason);
	}

	static int deliveryCount(ConsumerRecord<?, ?> record) {
		return record.deliveryCount().map(Short::intValue).orElse(1);
	}

	static String describe(ConsumerRecord<?, ?> record) {
		return record.topic() + "-" + record.partition() + "@" + record.offset() + " (delivery "
				+ deliveryCount(record) + ")";
	}

	static <T extends Throwable> @Nullable T find(Throwable thrown, Class<T> type) {
		for (Throwable candidate = thrown; candidate != null; candidate = candidate.getCause()) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
			if (candidate.getCause() == candidate) {
				break;
			}
		}
		return null;
	}

}
