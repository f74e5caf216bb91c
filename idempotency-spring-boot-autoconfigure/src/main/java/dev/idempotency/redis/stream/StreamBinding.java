package dev.idempotency.redis.stream;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.support.Listeners;

/**
 * The stream and consumer group one listener container reads, and the listeners its parts tell
 * about what happens to them: the value the container's collaborators share instead of reaching
 * back into the container.
 *
 * @param stream the stream key
 * @param group the consumer group
 * @param listeners told about dead letters and, those that are {@link StreamConsumerListener}s, about
 * claims, trimmed entries, group recreations, pending entries and subscriptions; read anew for every
 * notification
 */
record StreamBinding(String stream, String group, Supplier<List<DeliveryListener>> listeners) {

	/**
	 * Tells every listener; a listener that throws is logged and does not stop the others.
	 * @param notification the call to make on each listener
	 */
	void notifyListeners(Consumer<DeliveryListener> notification) {
		Listeners.notifyEach(this.listeners.get(), notification, "a stream event of " + this.stream);
	}

	/**
	 * Tells every listener that is a {@link StreamConsumerListener} of an event of the consumer
	 * group; a listener that throws is logged and does not stop the others.
	 * @param notification the call to make on each such listener
	 */
	void notifyStreamListeners(Consumer<StreamConsumerListener> notification) {
		List<StreamConsumerListener> streamListeners = new ArrayList<>();
		for (DeliveryListener listener : this.listeners.get()) {
			if (listener instanceof StreamConsumerListener streamListener) {
				streamListeners.add(streamListener);
			}
		}
		Listeners.notifyEach(streamListeners, notification, "a stream event of " + this.stream);
	}

	/**
	 * The stream key as the raw commands take it.
	 * @return the stream key in UTF-8
	 */
	byte[] streamKey() {
		return this.stream.getBytes(StandardCharsets.UTF_8);
	}

}
