package dev.idempotency.kafka.share;

import dev.idempotency.core.DeliveryListener;

/**
 * A {@link DeliveryListener} that is also told how the share-group adapter settled each record
 * with the broker. The adapter calls it only on the {@code DeliveryListener} beans that implement
 * it. Called on the consumer thread (renewals on the renewal thread); keep it quick.
 *
 * @since 0.2.0
 */
public interface ShareConsumerListener extends DeliveryListener {

	/**
	 * A record was settled, or its lock renewed.
	 * @param group the share group
	 * @param type {@code accept}, {@code release}, {@code reject} or {@code renew}
	 * @param reason why: see {@link ShareDecision.Reason}
	 */
	default void onShareAcknowledged(String group, String type, String reason) {
	}

}
