package dev.idempotency.core;

/**
 * A transactional store was asked to claim a key while its own resource (the JDBC store's
 * {@code DataSource}) takes no part in the current transaction. The claim would commit on its own,
 * so a failed message's record would survive the rollback and its retry would be skipped as a
 * duplicate: the store refuses instead. This is a configuration error (a transaction manager that
 * does not manage the store's {@code DataSource}), which start-up normally reports; retrying the
 * message cannot fix it.
 *
 * @since 0.2.0
 */
public class StoreNotInTransactionException extends NonRetryableIdempotencyException {

	public StoreNotInTransactionException(String message) {
		super(message);
	}

}
