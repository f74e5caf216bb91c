package dev.idempotency.support;

import java.util.List;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells listeners of an event, one after the other. A listener's exception is logged and goes no
 * further: it neither reaches the code that raised the event nor keeps the other listeners from
 * being told.
 *
 * @since 0.2.0
 */
public final class Listeners {

	private static final Log logger = LogFactory.getLog(Listeners.class);

	private Listeners() {
	}

	/**
	 * Tells each listener of an event.
	 * @param <L> the listener type
	 * @param listeners the listeners, in order
	 * @param notification calls one listener
	 * @param event what happened, for the log line of a failing listener
	 */
	public static <L> void notifyEach(List<? extends L> listeners, Consumer<? super L> notification, String event) {
		for (L listener : listeners) {
			try {
				notification.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Listener " + listener + " failed on " + event + "; ignored", ex);
			}
		}
	}

}
