package dev.idempotency.core;

/**
 * Acknowledges the delivery being processed (commits a Kafka offset, XACKs a stream entry). A
 * transport adapter puts one in the {@link DeliveryContext}; the interceptor calls it after the
 * transaction committed, on the consumer thread, for processed messages and duplicates alike, and
 * never after a rollback.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface MessageAcknowledger {

	/**
	 * Acknowledges the current delivery. Exceptions propagate to the listener container, which then
	 * treats the delivery as failed: it will be redelivered and found a duplicate.
	 */
	void acknowledge();

}
