package dev.idempotency.sample;

/**
 * The outcome of a demo run, from Kafka (offsets), the {@code idempotency.invocations} meter and
 * the database.
 *
 * @param published records published (valid orders, re-sends, poison, keyless and malformed)
 * @param uniqueOrders distinct valid orders published
 * @param duplicatesSent re-sends of valid orders (same order id, new message id)
 * @param delivered invocations of the listener, retries included (all outcomes of the meter)
 * @param processed invocations that ran and committed (outcome {@code processed})
 * @param duplicatesSkipped invocations skipped as duplicates (outcome {@code duplicate})
 * @param failedAttempts invocations rolled back (outcome {@code failed})
 * @param rejected invocations whose key could not be resolved (outcome {@code rejected})
 * @param deadLettered records on the dead-letter topic
 * @param expectedPoints points the distinct valid orders are worth
 * @param pointsCredited sum of all balances
 * @param ledgerRows rows in the points ledger
 */
public record DemoReport(long published, long uniqueOrders, long duplicatesSent, long delivered, long processed,
		long duplicatesSkipped, long failedAttempts, long rejected, long deadLettered, long expectedPoints,
		long pointsCredited, long ledgerRows) {

	/** Whether every valid order was credited exactly once: one ledger row each, no extra points. */
	public boolean creditedOncePerOrder() {
		return this.ledgerRows == this.uniqueOrders && this.pointsCredited == this.expectedPoints;
	}

	@Override
	public String toString() {
		return String.join(System.lineSeparator(), "Orders -> points demo (Kafka)",
				"  sent                  %7d  (%d orders, %d re-sent, %d broken)".formatted(this.published,
						this.uniqueOrders, this.duplicatesSent, this.published - this.uniqueOrders - this.duplicatesSent),
				"  delivered             %7d  (listener invocations, retries included)".formatted(this.delivered),
				"  processed             %7d".formatted(this.processed),
				"  duplicates skipped    %7d".formatted(this.duplicatesSkipped),
				"  failed attempts       %7d  (rolled back, retried)".formatted(this.failedAttempts),
				"  rejected              %7d  (no key, not retried)".formatted(this.rejected),
				"  dead-lettered         %7d  (records on orders.DLT)".formatted(this.deadLettered),
				"  ledger rows           %7d  (unique orders: %d)".formatted(this.ledgerRows, this.uniqueOrders),
				"  points credited       %7d  (expected: %d)".formatted(this.pointsCredited, this.expectedPoints),
				"  credited == unique: " + creditedOncePerOrder());
	}

}
