package dev.idempotency.sample;

/**
 * The outcome of a demo run, from the broker, the {@code idempotency.invocations} meter and the
 * database.
 *
 * @param published messages published (valid orders, re-sends, poison and keyless orders)
 * @param deliveries deliveries to the listener, redeliveries included
 * @param uniqueOrders distinct valid orders published
 * @param duplicatesSent re-sends of valid orders
 * @param processed invocations that ran and committed (outcome {@code processed})
 * @param duplicatesSkipped invocations skipped as duplicates (outcome {@code duplicate})
 * @param failedAttempts invocations rolled back (outcome {@code failed})
 * @param rejected invocations whose key could not be resolved (outcome {@code rejected})
 * @param acknowledged deliveries acknowledged after commit
 * @param unacknowledged deliveries that returned without an acknowledgement
 * @param deadLettered messages dead-lettered by the broker
 * @param expectedPoints points the distinct valid orders are worth
 * @param pointsCredited sum of all balances
 * @param ledgerRows rows in the points ledger
 */
public record DemoReport(long published, long deliveries, long uniqueOrders, long duplicatesSent, long processed,
		long duplicatesSkipped, long failedAttempts, long rejected, long acknowledged, long unacknowledged,
		long deadLettered, long expectedPoints, long pointsCredited, long ledgerRows) {

	/** Whether every valid order was credited exactly once: one ledger row each, no extra points. */
	public boolean creditedOncePerOrder() {
		return this.ledgerRows == this.uniqueOrders && this.pointsCredited == this.expectedPoints;
	}

	@Override
	public String toString() {
		return String.join(System.lineSeparator(), "Orders -> points demo",
				"  messages published    %7d  (%d orders, %d re-sent, %d broken)".formatted(this.published,
						this.uniqueOrders, this.duplicatesSent, this.published - this.uniqueOrders - this.duplicatesSent),
				"  deliveries            %7d  (redeliveries included)".formatted(this.deliveries),
				"  processed             %7d".formatted(this.processed),
				"  duplicates skipped    %7d".formatted(this.duplicatesSkipped),
				"  failed attempts       %7d  (rolled back, redelivered)".formatted(this.failedAttempts),
				"  rejected              %7d  (no key, not retried)".formatted(this.rejected),
				"  acknowledged          %7d  (unacknowledged: %d)".formatted(this.acknowledged, this.unacknowledged),
				"  dead-lettered         %7d".formatted(this.deadLettered),
				"  ledger rows           %7d  (unique orders: %d)".formatted(this.ledgerRows, this.uniqueOrders),
				"  points credited       %7d  (expected: %d)".formatted(this.pointsCredited, this.expectedPoints),
				"  credited == unique: " + creditedOncePerOrder());
	}

}
