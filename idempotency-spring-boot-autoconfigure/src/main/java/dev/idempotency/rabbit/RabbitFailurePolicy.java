package dev.idempotency.rabbit;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.NonRetryableIdempotencyException;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.Message;
import org.springframework.messaging.handler.annotation.support.MethodArgumentNotValidException;
import org.springframework.messaging.handler.annotation.support.MethodArgumentTypeMismatchException;

/**
 * The decisions about a delivery that failed for the message's sake (infrastructure failures are
 * held before they reach it):
 * <ul>
 * <li>bad input (a payload the message converter cannot read or the method cannot take, the
 * container's fatal exceptions) and {@link NonRetryableIdempotencyException} (no key, a key
 * expression that fails, a fingerprint conflict): dead-lettered at once;</li>
 * <li>any other failure: retried in place, with back-off, up to the delivery's attempts, then
 * dead-lettered;</li>
 * <li>{@link IdempotencyInProgressException}: waits a tenth of the lease (100 ms to 5 s), without
 * counting an attempt.</li>
 * </ul>
 * The attempts of a delivery are the configured ones less the deliveries a quorum queue counted
 * before it ({@code x-delivery-count}), at least one: a message whose earlier deliveries ended
 * without a verdict (its consumer crashed or lost its channel) is not given a full budget each time,
 * and is dead-lettered by the adapter, with its cause, before the queue's {@code x-delivery-limit}
 * drops or dead-letters it without one. Stateless and thread-safe.
 *
 * @since 0.2.0
 */
public final class RabbitFailurePolicy {

	/** The quorum queue's count of earlier deliveries of a message. */
	static final String DELIVERY_COUNT_HEADER = "x-delivery-count";

	static final Duration MIN_IN_PROGRESS_INTERVAL = Duration.ofMillis(100);

	static final Duration MAX_IN_PROGRESS_INTERVAL = Duration.ofSeconds(5);

	private static final List<Class<? extends Throwable>> BAD_INPUT = List.of(
			org.springframework.amqp.support.converter.MessageConversionException.class,
			org.springframework.messaging.converter.MessageConversionException.class,
			MethodArgumentNotValidException.class, MethodArgumentTypeMismatchException.class,
			AmqpRejectAndDontRequeueException.class, ClassCastException.class, NoSuchMethodException.class);

	private final RabbitRetrySettings retry;

	/**
	 * Creates the policy.
	 * @param retry the attempts and back-off
	 */
	public RabbitFailurePolicy(RabbitRetrySettings retry) {
		this.retry = retry;
	}

	/**
	 * The attempts a delivery gets.
	 * @param message the message
	 * @return the configured attempts less its earlier deliveries on a quorum queue, at least 1
	 */
	int attemptsOf(Message message) {
		Object count = message.getMessageProperties().getHeaders().get(DELIVERY_COUNT_HEADER);
		long earlier = (count instanceof Number number) ? number.longValue() : 0;
		return (int) Math.max(1, this.retry.maxAttempts() - Math.max(0, earlier));
	}

	/**
	 * The back-off after a failed attempt.
	 * @param attempt the attempt that failed, from 1
	 * @return the back-off
	 */
	Duration backOffAfter(int attempt) {
		return this.retry.backOffAfter(attempt);
	}

	/**
	 * Why a failure dead-letters its message at once, if it does.
	 * @param failure what the delivery failed with
	 * @return {@code bad-input}, {@code not-retryable}, or {@code null} to retry
	 */
	@Nullable String notRetryableReason(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof NonRetryableIdempotencyException) {
				return "not-retryable";
			}
			for (Class<? extends Throwable> type : BAD_INPUT) {
				if (type.isInstance(cause)) {
					return "bad-input";
				}
			}
		}
		return null;
	}

	/**
	 * The key in progress elsewhere that a failure reports, if any.
	 * @param failure what the delivery failed with
	 * @return the exception, or {@code null}
	 */
	static @Nullable IdempotencyInProgressException inProgress(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof IdempotencyInProgressException inProgress) {
				return inProgress;
			}
		}
		return null;
	}

	/**
	 * How long a delivery whose key is in progress elsewhere waits before its next attempt.
	 * @param inProgress the failure
	 * @return a tenth of the lease, between 100 ms and 5 s
	 */
	static Duration inProgressInterval(IdempotencyInProgressException inProgress) {
		Duration tenth = inProgress.getLease().dividedBy(10);
		if (tenth.compareTo(MIN_IN_PROGRESS_INTERVAL) < 0) {
			return MIN_IN_PROGRESS_INTERVAL;
		}
		return (tenth.compareTo(MAX_IN_PROGRESS_INTERVAL) > 0) ? MAX_IN_PROGRESS_INTERVAL : tenth;
	}

}
