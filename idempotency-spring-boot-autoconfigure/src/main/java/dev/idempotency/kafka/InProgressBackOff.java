package dev.idempotency.kafka;

import java.time.Duration;

import dev.idempotency.core.IdempotencyInProgressException;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * How a record whose key another worker holds is retried: at a fixed interval of a tenth of the
 * lease, between 100 ms and 5 s, for as long as the key stays in progress. The wait is bounded by
 * the lease: once it has expired the next claim takes the key over (or finds it processed), so the
 * record is never dead-lettered for being in progress. Each step is far below
 * {@code max.poll.interval.ms}, so the consumer keeps its partitions while it waits.
 *
 * @since 0.2.0
 */
public final class InProgressBackOff {

	static final Duration MIN_INTERVAL = Duration.ofMillis(100);

	static final Duration MAX_INTERVAL = Duration.ofSeconds(5);

	private InProgressBackOff() {
	}

	/**
	 * The back-off for a failure, if it is a key in progress.
	 * @param failure the listener's failure
	 * @return an unlimited back-off, or {@code null} for any other failure (the handler's own
	 * back-off then applies)
	 */
	public static @Nullable BackOff of(Exception failure) {
		IdempotencyInProgressException inProgress = IdempotentErrorHandler.find(failure,
				IdempotencyInProgressException.class);
		return (inProgress != null)
				? new FixedBackOff(interval(inProgress.getLease()).toMillis(), FixedBackOff.UNLIMITED_ATTEMPTS) : null;
	}

	/**
	 * The interval between two attempts of a key held with {@code lease}.
	 * @param lease the method's lease, {@link Duration#ZERO} if unknown
	 * @return a tenth of the lease, between 100 ms and 5 s
	 */
	public static Duration interval(Duration lease) {
		Duration tenth = lease.dividedBy(10);
		if (tenth.compareTo(MIN_INTERVAL) < 0) {
			return MIN_INTERVAL;
		}
		return (tenth.compareTo(MAX_INTERVAL) > 0) ? MAX_INTERVAL : tenth;
	}

}
