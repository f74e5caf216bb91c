package dev.idempotency.kafka.share.metrics;

/**
 * Names and tags of the Kafka share-group adapter's meters, which
 * {@link MicrometerShareConsumerListener} registers. The engine's meters (invocations, dead
 * letters, fail-closed pauses) are named in {@code dev.idempotency.metrics.IdempotencyMeters}.
 *
 * @since 0.2.0
 */
public final class KafkaShareMeters {

	/**
	 * Counter of share-group records settled with the broker, and of lock renewals, tagged
	 * {@value #GROUP_TAG}, {@value #TYPE_TAG} and {@value #REASON_TAG}.
	 */
	public static final String SHARE_ACKNOWLEDGEMENTS = "idempotency.share.acknowledgements";

	/** Tag: the share group. */
	public static final String GROUP_TAG = "group";

	/** Tag: {@code accept}, {@code release}, {@code reject} or {@code renew}. */
	public static final String TYPE_TAG = "type";

	/** Tag: why, for example {@code processed}, {@code failed}, {@code outage}, {@code bad-input}. */
	public static final String REASON_TAG = "reason";

	private KafkaShareMeters() {
	}

}
