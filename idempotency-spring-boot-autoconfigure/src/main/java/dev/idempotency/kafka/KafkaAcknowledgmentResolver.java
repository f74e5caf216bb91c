package dev.idempotency.kafka;

import dev.idempotency.core.ArgumentAcknowledgerResolver;
import dev.idempotency.core.MessageAcknowledger;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.support.Acknowledgment;

/**
 * Acknowledges MANUAL and MANUAL_IMMEDIATE listeners through their {@link Acknowledgment}
 * argument, after commit, for processed records and duplicates alike. Such listeners must not call
 * {@code acknowledge()} themselves: that would commit the offset before the transaction.
 *
 * @since 0.1.0
 */
public class KafkaAcknowledgmentResolver implements ArgumentAcknowledgerResolver {

	@Override
	public @Nullable MessageAcknowledger resolve(@Nullable Object[] args) {
		for (Object arg : args) {
			if (arg instanceof Acknowledgment acknowledgment) {
				return acknowledgment::acknowledge;
			}
		}
		return null;
	}

}
