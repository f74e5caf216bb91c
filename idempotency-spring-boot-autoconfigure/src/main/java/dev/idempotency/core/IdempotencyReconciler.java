package dev.idempotency.core;

/**
 * Decides what happened to a leased claim whose lease ended without completion: the process that
 * held it crashed, or lost its connection, somewhere between the claim and marking the key
 * completed. The application implements it by looking at the business state (the payment
 * provider's record of the charge, the order's status) and declares it as a bean; the starter then
 * scans such claims on a schedule and settles each with the verdict.
 * <p>
 * Contract:
 * <ul>
 * <li>Called with the claim held for the reconciler under a lease of its own: no delivery and no
 * other instance acts on the key until the verdict is applied (or that lease ends).</li>
 * <li>Must not run the business work itself: {@link Verdict#RETRY} has the next delivery run it.</li>
 * <li>An exception leaves the claim unsettled; it is offered again at a later scan.</li>
 * <li>While a reconciler bean exists, a delivery never takes over an ended lease: it is retried until
 * the reconciler has decided.</li>
 * </ul>
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface IdempotencyReconciler {

	/**
	 * Decides one unfinished claim.
	 * @param claim the claim whose lease ended without completion
	 * @return the verdict, never {@code null}
	 */
	Verdict reconcile(UnfinishedClaim claim);

	/** What to do with an unfinished claim. */
	enum Verdict {

		/** The work was done: mark the key completed; the next delivery is acknowledged and skipped. */
		COMPLETED,

		/** The work was not done: release the key; the next delivery runs the method again. */
		RETRY,

		/**
		 * Cannot tell: park the key for a person ({@link ParkedKeys}); its deliveries are acknowledged
		 * and skipped as {@code parked} until it is resolved.
		 */
		MANUAL

	}

}
