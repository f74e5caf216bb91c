package dev.idempotency.sample;

import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * What one flow's consumers did, from the broker (messages on the topic or stream and on its
 * dead-letter destination), the {@code idempotency.invocations} meter and the flow's ledger.
 *
 * @param title the flow, e.g. {@code Kafka (topic orders, group points)}
 * @param fromOutbox messages the outbox relay sent to the flow (rows marked SENT)
 * @param sent messages on the topic or stream: from the outbox plus the broken ones sent directly
 * @param uniqueOrders distinct valid orders
 * @param duplicatesSent re-sends of valid orders (same order id, new message id)
 * @param delivered invocations of the listener, retries included (all outcomes of the meter)
 * @param processed invocations that ran and committed (outcome {@code processed})
 * @param duplicatesSkipped invocations skipped as duplicates (outcome {@code duplicate})
 * @param failedAttempts invocations rolled back (outcome {@code failed})
 * @param rejected invocations whose key could not be resolved (outcome {@code rejected})
 * @param deadLettered messages on the dead-letter destination
 * @param deadLetterDestination the dead-letter topic or stream
 * @param expectedPoints points the distinct valid orders are worth
 * @param pointsCredited sum of the flow's balances
 * @param ledgerRows rows in the flow's ledger
 */
public record FlowReport(String title, long fromOutbox, long sent, long uniqueOrders, long duplicatesSent,
		long delivered, long processed, long duplicatesSkipped, long failedAttempts, long rejected, long deadLettered,
		String deadLetterDestination, long expectedPoints, long pointsCredited, long ledgerRows) {

	/** Whether every valid order was credited exactly once: one ledger row each, no extra points. */
	public boolean creditedOncePerOrder() {
		return this.ledgerRows == this.uniqueOrders && this.pointsCredited == this.expectedPoints;
	}

	/** Invocations of a namespace's {@code @Idempotent} method with an outcome, or with any if {@code null}. */
	static long invocations(MeterRegistry meters, String namespace, @Nullable String outcome) {
		var search = meters.find(IdempotencyMeters.INVOCATIONS).tag(IdempotencyMeters.NAMESPACE_TAG, namespace);
		if (outcome != null) {
			search = search.tag(IdempotencyMeters.OUTCOME_TAG, outcome);
		}
		return search.timers().stream().mapToLong(Timer::count).sum();
	}

	@Override
	public String toString() {
		return String.join(System.lineSeparator(), this.title,
				"  sent                  %7d  (%d from the outbox, %d broken sent directly)".formatted(this.sent,
						this.fromOutbox, this.sent - this.fromOutbox),
				"  delivered             %7d  (listener invocations, retries included)".formatted(this.delivered),
				"  processed             %7d".formatted(this.processed),
				"  duplicates skipped    %7d".formatted(this.duplicatesSkipped),
				"  failed attempts       %7d  (rolled back, retried)".formatted(this.failedAttempts),
				"  rejected              %7d  (no key, not retried)".formatted(this.rejected),
				"  dead-lettered         %7d  (on %s)".formatted(this.deadLettered, this.deadLetterDestination),
				"  ledger rows           %7d  (unique orders: %d)".formatted(this.ledgerRows, this.uniqueOrders),
				"  points credited       %7d  (expected: %d)".formatted(this.pointsCredited, this.expectedPoints),
				"  credited == unique: " + creditedOncePerOrder());
	}

}
