package dev.idempotency.annotation;

/**
 * How an {@link Idempotent} method records its key.
 *
 * @since 0.2.0
 */
public enum IdempotencyMode {

	/**
	 * The store's own mode: transactional for the JDBC store when a transaction manager manages its
	 * {@code DataSource}, leased when the application has no transaction manager at all; leased for
	 * the Redis and Redisson stores. A transaction manager that does not manage the store's
	 * {@code DataSource} still fails start-up: a claim that commits on its own is never chosen by
	 * accident.
	 */
	DEFAULT,

	/**
	 * The key is inserted in the business transaction and commits or rolls back with the method's
	 * writes. Needs a store whose claims take part in a transaction (JDBC) and a transaction manager
	 * that manages its resource.
	 */
	TRANSACTIONAL,

	/**
	 * For work that no local transaction covers (a payment provider, an e-mail, another service): the
	 * key is claimed as in progress under a lease in a short transaction of its own, the method runs
	 * without a transaction opened by the starter, a success marks the key completed in a second short
	 * transaction and only then acknowledges the delivery, a failure releases the claim. A crash
	 * leaves the claim in progress until its lease ends; then the next delivery takes it over, or an
	 * {@code IdempotencyReconciler} decides.
	 */
	LEASED

}
