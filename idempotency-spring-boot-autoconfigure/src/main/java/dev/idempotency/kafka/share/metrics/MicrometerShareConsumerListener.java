package dev.idempotency.kafka.share.metrics;

import dev.idempotency.kafka.share.ShareConsumerListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts what the share-group adapter tells its listeners: {@value KafkaShareMeters#SHARE_ACKNOWLEDGEMENTS}
 * by group, acknowledgement type and reason.
 *
 * @since 0.2.0
 */
public class MicrometerShareConsumerListener implements ShareConsumerListener {

	private final MeterProvider<Counter> acknowledgements;

	/**
	 * Creates the listener.
	 * @param registry where the meters go
	 */
	public MicrometerShareConsumerListener(MeterRegistry registry) {
		this.acknowledgements = Counter.builder(KafkaShareMeters.SHARE_ACKNOWLEDGEMENTS)
			.description("Share-group records settled with the broker (accept, release, reject) and lock renewals")
			.withRegistry(registry);
	}

	@Override
	public void onShareAcknowledged(String group, String type, String reason) {
		this.acknowledgements
			.withTags(KafkaShareMeters.GROUP_TAG, group, KafkaShareMeters.TYPE_TAG, type, KafkaShareMeters.REASON_TAG,
					reason)
			.increment();
	}

}
