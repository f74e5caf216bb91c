package dev.idempotency.metrics;

/**
 * Names and tags of the engine's meters: invocations, purges, dead letters, fail-closed pauses, the
 * reconciler and the duplicate filters. The technologies name their own meters:
 * {@code dev.idempotency.redis.stream.metrics.RedisStreamMeters},
 * {@code dev.idempotency.outbox.metrics.OutboxMeters}.
 *
 * @since 0.1.0
 */
public final class IdempotencyMeters {

	/**
	 * Timer of {@code @Idempotent} invocations, from key resolution to commit, tagged
	 * {@value #NAMESPACE_TAG}, {@value #OUTCOME_TAG} and {@value #STORE_TAG}.
	 */
	public static final String INVOCATIONS = "idempotency.invocations";

	/** Counter of expired records deleted by the purge, tagged {@value #STORE_TAG}. */
	public static final String PURGE_DELETED = "idempotency.purge.deleted";

	/** Counter of purge runs, tagged {@value #STORE_TAG}. */
	public static final String PURGE_RUNS = "idempotency.purge.runs";

	/**
	 * Counter of messages published to a dead-letter destination, tagged {@value #SOURCE_TAG},
	 * {@value #DESTINATION_TAG} and {@value #EXCEPTION_TAG}.
	 */
	public static final String DEAD_LETTERED = "idempotency.dead.lettered";

	/**
	 * Gauge: 1 while a listener is paused by fail-closed (the infrastructure failed), else 0. Tag
	 * {@value #LISTENER_TAG}.
	 */
	public static final String LISTENER_PAUSED = "idempotency.listener.paused";

	/**
	 * Counter: pauses of a listener by fail-closed, one per outage. Tag {@value #LISTENER_TAG}.
	 */
	public static final String LISTENER_PAUSES = "idempotency.listener.pauses";

	/** Tag: the listener's id (a Kafka listener container's id, a stream listener's stream/group). */
	public static final String LISTENER_TAG = "listener";

	/** Counter of unfinished leased claims a reconciliation scan took over, tagged {@value #STORE_TAG}. */
	public static final String RECONCILER_SCANNED = "idempotency.reconciler.scanned";

	/**
	 * Counter of reconciled claims, tagged {@value #STORE_TAG} and {@value #VERDICT_TAG}
	 * ({@code completed}, {@code retry}, {@code manual}, or {@code failed} when the reconciler threw
	 * or its hold ended before the verdict was applied).
	 */
	public static final String RECONCILER_VERDICTS = "idempotency.reconciler.verdicts";

	/**
	 * Time gauge of the age of the oldest leased claim whose lease ended without completion, as of
	 * the last scan; 0 when there is none. Tagged {@value #STORE_TAG}.
	 */
	public static final String RECONCILER_OLDEST_UNFINISHED = "idempotency.reconciler.oldest.unfinished";

	/** Tag of a reconciler's verdict. */
	public static final String VERDICT_TAG = "verdict";

	/** The topic or stream a dead-lettered message came from. */
	public static final String SOURCE_TAG = "source";

	/** The dead-letter topic or stream. */
	public static final String DESTINATION_TAG = "destination";

	/** The logical consumer: listener group, or {@code Class#method}. */
	public static final String NAMESPACE_TAG = "namespace";

	/** {@code processed}, {@code duplicate}, {@code failed}, {@code in_progress} or {@code rejected}. */
	public static final String OUTCOME_TAG = "outcome";

	/** The store's name: {@code jdbc}, {@code redis}, {@code in_memory}, ... */
	public static final String STORE_TAG = "store";

	/** Exception class name of failed and rejected invocations, {@code none} otherwise. */
	public static final String EXCEPTION_TAG = "exception";

	/**
	 * Counter of the answers of a duplicate filter, tagged {@value #FILTER_TAG} and
	 * {@value #ANSWER_TAG} ({@code completed}: answered a duplicate, {@code absent}: sent the key
	 * straight to the store, {@code maybe} and {@code unknown}: passed it on).
	 */
	public static final String FILTER_ANSWERS = "idempotency.filter.answers";

	/**
	 * Counter of a filter's "maybe" answers that the store then claimed as new keys, tagged
	 * {@value #FILTER_TAG}.
	 */
	public static final String FILTER_FALSE_POSITIVES = "idempotency.filter.false.positives";

	/** Gauge: keys the last rebuild of a local filter read from the store, tagged {@value #FILTER_TAG}. */
	public static final String FILTER_REBUILD_KEYS = "idempotency.filter.rebuild.keys";

	/** Time gauge: how long the last rebuild of a local filter took, tagged {@value #FILTER_TAG}. */
	public static final String FILTER_REBUILD_DURATION = "idempotency.filter.rebuild.duration";

	/** Gauge: bytes a local filter holds, tagged {@value #FILTER_TAG}. */
	public static final String FILTER_MEMORY = "idempotency.filter.memory";

	/** Tag: a duplicate filter's name ({@code bloom}, {@code bitmap}, {@code redis-recent}, ...). */
	public static final String FILTER_TAG = "filter";

	/** Tag: a duplicate filter's answer. */
	public static final String ANSWER_TAG = "answer";

	private IdempotencyMeters() {
	}

}
