package dev.idempotency.outbox.metrics;

/**
 * Names and tags of the transactional outbox's meters, which {@link MicrometerOutboxListener} and
 * {@link MicrometerOutboxBacklogGauges} register. The engine's meters are named in
 * {@code dev.idempotency.metrics.IdempotencyMeters}.
 *
 * @since 0.2.0
 */
public final class OutboxMeters {

	/**
	 * Counter of outbox messages the broker acknowledged and whose rows were marked sent, tagged
	 * {@value #DESTINATION_TAG}.
	 */
	public static final String OUTBOX_PUBLISHED = "idempotency.outbox.published";

	/**
	 * Counter of failed outbox send attempts that will be retried, tagged {@value #DESTINATION_TAG}
	 * and {@value #EXCEPTION_TAG}.
	 */
	public static final String OUTBOX_FAILED = "idempotency.outbox.failed";

	/**
	 * Counter of outbox messages marked dead (attempts used up, or no sender), tagged
	 * {@value #DESTINATION_TAG} and {@value #EXCEPTION_TAG}.
	 */
	public static final String OUTBOX_DEAD = "idempotency.outbox.dead";

	/**
	 * Timer from an outbox row's creation in the business transaction to the broker's
	 * acknowledgement, tagged {@value #DESTINATION_TAG}.
	 */
	public static final String OUTBOX_LATENCY = "idempotency.outbox.latency";

	/** Gauge of outbox rows committed and not yet sent. */
	public static final String OUTBOX_BACKLOG = "idempotency.outbox.backlog";

	/** Gauge of outbox rows marked dead and waiting to be re-driven. */
	public static final String OUTBOX_DEAD_BACKLOG = "idempotency.outbox.dead.backlog";

	/** Gauge of the age of the oldest unsent outbox row, in seconds; 0 when none waits. */
	public static final String OUTBOX_OLDEST_AGE = "idempotency.outbox.oldest.age";

	/**
	 * The row's destination ({@code kafka:orders}). The same tag name as
	 * {@code IdempotencyMeters.DESTINATION_TAG}, which the dead-letter counter carries.
	 */
	public static final String DESTINATION_TAG = "destination";

	/**
	 * Simple class name of the failure's root cause. The same tag name as
	 * {@code IdempotencyMeters.EXCEPTION_TAG}.
	 */
	public static final String EXCEPTION_TAG = "exception";

	private OutboxMeters() {
	}

}
