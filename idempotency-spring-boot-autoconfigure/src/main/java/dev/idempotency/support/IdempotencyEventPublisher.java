package dev.idempotency.support;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyOutcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Tells listeners an outcome; a listener that throws is logged and skipped, never changing it.
 */
final class IdempotencyEventPublisher {

	private static final Log logger = LogFactory.getLog(IdempotencyEventPublisher.class);

	private IdempotencyEventPublisher() {
	}

	static void publish(List<IdempotencyListener> listeners, String namespace, @Nullable IdempotencyKey key,
			IdempotencyOutcome outcome, String store, long nanos, @Nullable Throwable failure) {
		if (outcome == IdempotencyOutcome.FAILED || outcome == IdempotencyOutcome.REJECTED) {
			logger.debug("@Idempotent invocation " + outcome.tag() + " in namespace '" + namespace + "'", failure);
		}
		if (listeners.isEmpty()) {
			return;
		}
		IdempotencyEvent event = new IdempotencyEvent(namespace, (key != null) ? key.value() : null, outcome, store,
				Duration.ofNanos(nanos), failure);
		Listeners.notifyEach(listeners, (listener) -> listener.onOutcome(event), "outcome " + outcome.tag());
	}

}
