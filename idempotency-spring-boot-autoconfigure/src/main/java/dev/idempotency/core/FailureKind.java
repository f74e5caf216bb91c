package dev.idempotency.core;

/**
 * Whose fault a failed delivery was, which decides what a transport adapter does with it.
 *
 * @since 0.2.0
 * @see FailureClassifier
 */
public enum FailureKind {

	/**
	 * The store, the business database, Redis or the broker could not be reached or did not answer
	 * (connection refused or lost, pool or query timeout, a commit whose outcome is unknown). Not the
	 * message's fault: with fail-closed on, the listener pauses and the delivery is retried in place,
	 * without counting an attempt, until the infrastructure answers again.
	 */
	INFRASTRUCTURE,

	/**
	 * The listener failed because of the message (a business exception, an invalid key, a payload
	 * that cannot be read). Counts as an attempt: retried with back-off, then dead-lettered.
	 */
	MESSAGE

}
