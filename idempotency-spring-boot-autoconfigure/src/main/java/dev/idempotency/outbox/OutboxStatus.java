package dev.idempotency.outbox;

/**
 * States of an outbox row.
 *
 * @since 0.1.0
 */
public enum OutboxStatus {

	/** Committed, not yet confirmed by the broker: due, being sent, or waiting for its next attempt. */
	PENDING,

	/** Confirmed by the broker; deleted by the purge after the retention. */
	SENT,

	/** Used up its attempts or has no sender; waits for {@link OutboxAdmin#redriveDead()}. */
	DEAD

}
