package dev.idempotency.redis.stream;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.idempotency.core.IdempotencyListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The stream and consumer group one listener container reads, and the listeners its parts tell
 * about what happens to them: the value the container's collaborators share instead of reaching
 * back into the container.
 *
 * @param stream the stream key
 * @param group the consumer group
 * @param listeners told about dead letters, claims, trimmed entries, group recreations,
 * pending entries and subscriptions; read anew for every notification
 */
record StreamBinding(String stream, String group, Supplier<List<IdempotencyListener>> listeners) {

	// The container's category, as before the split: logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	/**
	 * Tells every listener; a listener that throws is logged and does not stop the others.
	 * @param notification the call to make on each listener
	 */
	void notifyListeners(Consumer<IdempotencyListener> notification) {
		for (IdempotencyListener listener : this.listeners.get()) {
			try {
				notification.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("IdempotencyListener " + listener + " failed", ex);
			}
		}
	}

	/**
	 * The stream key as the raw commands take it.
	 * @return the stream key in UTF-8
	 */
	byte[] streamKey() {
		return this.stream.getBytes(StandardCharsets.UTF_8);
	}

}
