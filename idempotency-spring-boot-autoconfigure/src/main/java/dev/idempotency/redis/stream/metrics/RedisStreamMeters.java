package dev.idempotency.redis.stream.metrics;

/**
 * Names and tags of the Redis Stream adapter's meters, which {@link MicrometerStreamConsumerListener}
 * registers. The engine's meters are named in {@code dev.idempotency.metrics.IdempotencyMeters}.
 *
 * @since 0.2.0
 */
public final class RedisStreamMeters {

	/**
	 * Gauge of a Redis Stream consumer group's pending entries (delivered, not acknowledged), tagged
	 * {@value #STREAM_TAG} and {@value #GROUP_TAG}.
	 */
	public static final String STREAM_PENDING = "idempotency.stream.pending";

	/**
	 * Time gauge of how long the most idle of a group's oldest pending entries has waited since its
	 * last delivery, tagged {@value #STREAM_TAG} and {@value #GROUP_TAG}.
	 */
	public static final String STREAM_PENDING_OLDEST_IDLE = "idempotency.stream.pending.oldest.idle";

	/**
	 * Gauge of this application's subscriptions reading a stream without error, tagged
	 * {@value #STREAM_TAG} and {@value #GROUP_TAG}.
	 */
	public static final String STREAM_SUBSCRIPTIONS_ACTIVE = "idempotency.stream.subscriptions.active";

	/**
	 * Counter of pending entries claimed from idle consumers (XAUTOCLAIM), tagged {@value #STREAM_TAG}
	 * and {@value #GROUP_TAG}.
	 */
	public static final String STREAM_RECLAIMED = "idempotency.stream.reclaimed";

	/**
	 * Counter of pending entries acknowledged because the stream no longer held their content
	 * (trimmed or deleted), tagged {@value #STREAM_TAG} and {@value #GROUP_TAG}.
	 */
	public static final String STREAM_TRIMMED = "idempotency.stream.trimmed";

	/**
	 * Counter of consumer groups recreated after they disappeared (NOGROUP), tagged
	 * {@value #STREAM_TAG} and {@value #GROUP_TAG}.
	 */
	public static final String STREAM_GROUP_RECREATED = "idempotency.stream.group.recreated";

	/** The Redis stream key. */
	public static final String STREAM_TAG = "stream";

	/** The Redis Stream consumer group. */
	public static final String GROUP_TAG = "group";

	private RedisStreamMeters() {
	}

}
