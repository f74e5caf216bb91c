package dev.idempotency.support;

import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.ArgumentAcknowledgerResolver;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.MessageAcknowledger;
import org.jspecify.annotations.Nullable;

/**
 * Finds who acknowledges the current delivery: the {@link DeliveryContext}'s own acknowledger,
 * else a handle among the listener method's arguments (Kafka's {@code Acknowledgment}, which
 * spring-kafka passes to the method but never to the interceptor that binds the context).
 *
 * @since 0.2.0
 */
final class AcknowledgerLookup {

	private final Supplier<List<ArgumentAcknowledgerResolver>> argumentResolvers;

	/**
	 * Creates a lookup.
	 * @param argumentResolvers consulted in order when the delivery has no acknowledger; read at the
	 * first lookup
	 */
	AcknowledgerLookup(Supplier<List<ArgumentAcknowledgerResolver>> argumentResolvers) {
		this.argumentResolvers = argumentResolvers;
	}

	/**
	 * Returns the acknowledger of the current delivery.
	 * @param delivery the current delivery, or {@code null} outside a transport adapter
	 * @param args the listener method's arguments
	 * @return the acknowledger, or {@code null} when the container acknowledges by itself
	 */
	@Nullable MessageAcknowledger find(@Nullable DeliveryContext delivery, @Nullable Object[] args) {
		if (delivery != null && delivery.acknowledger() != null) {
			return delivery.acknowledger();
		}
		for (ArgumentAcknowledgerResolver resolver : this.argumentResolvers.get()) {
			MessageAcknowledger acknowledger = resolver.resolve(args);
			if (acknowledger != null) {
				return acknowledger;
			}
		}
		return null;
	}

}
