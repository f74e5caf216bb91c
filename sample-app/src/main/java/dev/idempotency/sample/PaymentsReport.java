package dev.idempotency.sample;

import java.net.URI;

/**
 * What the payments flow did, from the provider's counts, the {@code idempotency.invocations} meter
 * of the {@value PaymentsFlow#NAMESPACE} namespace and the reconciler's verdicts.
 *
 * @param provider where the payment provider stub listened
 * @param requested payment requests sent to the topic, repeats included
 * @param uniquePayments distinct payments
 * @param duplicatesSent repeated requests
 * @param crashedClaims claims left {@code PROCESSING} by a simulated crash before the run
 * @param processed invocations that charged and completed their key (outcome {@code processed})
 * @param duplicatesSkipped invocations skipped as duplicates (outcome {@code duplicate})
 * @param reconciledCompleted crashed claims the reconciler completed (the provider had charged)
 * @param reconciledRetry crashed claims the reconciler released (the provider had not charged)
 * @param charges charges made at the provider, all payments together
 * @param paymentsCharged distinct payments charged at the provider
 */
public record PaymentsReport(URI provider, long requested, long uniquePayments, long duplicatesSent,
		long crashedClaims, long processed, long duplicatesSkipped, long reconciledCompleted, long reconciledRetry,
		long charges, long paymentsCharged) {

	/** Whether every payment was charged exactly once at the provider. */
	public boolean chargedOncePerPayment() {
		return this.charges == this.uniquePayments && this.paymentsCharged == this.uniquePayments;
	}

	@Override
	public String toString() {
		return String.join(System.lineSeparator(),
				"Payments (topic " + PaymentsFlow.TOPIC + ", group " + PaymentsFlow.GROUP
						+ ", leased mode; provider stub at " + this.provider + ")",
				"  payments requested    %7d  (%d unique, %d repeated)".formatted(this.requested, this.uniquePayments,
						this.duplicatesSent),
				"  crashed claims        %7d  (left PROCESSING before the run)".formatted(this.crashedClaims),
				"  reconciler verdicts   %7d  (completed %d: charged before the crash; retry %d: not charged)"
					.formatted(this.reconciledCompleted + this.reconciledRetry, this.reconciledCompleted,
							this.reconciledRetry),
				"  processed             %7d  (charged at the provider)".formatted(this.processed),
				"  duplicates skipped    %7d".formatted(this.duplicatesSkipped),
				"  charges at provider   %7d  (unique payments: %d, charged: %d)".formatted(this.charges,
						this.uniquePayments, this.paymentsCharged),
				"  charged == unique: " + chargedOncePerPayment());
	}

}
