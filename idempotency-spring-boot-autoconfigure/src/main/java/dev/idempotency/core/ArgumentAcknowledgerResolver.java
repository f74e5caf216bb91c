package dev.idempotency.core;

import org.jspecify.annotations.Nullable;

/**
 * Finds an acknowledgement handle among a listener method's arguments, for transports whose manual
 * acknowledgement is passed to the method (Kafka's {@code Acknowledgment}) rather than known to the
 * {@link DeliveryContext}. Consulted only when the delivery has no acknowledger of its own.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ArgumentAcknowledgerResolver {

	/**
	 * Returns an acknowledger for the handle among {@code args}, if there is one.
	 * @param args the listener method's arguments
	 * @return the acknowledger, or {@code null} if no argument is a handle this resolver knows
	 */
	@Nullable MessageAcknowledger resolve(@Nullable Object[] args);

}
