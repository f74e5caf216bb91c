package dev.idempotency.annotation;

/**
 * What an {@link Idempotent} method does when its key has already been processed.
 *
 * @since 0.1.0
 */
public enum OnDuplicate {

	/**
	 * Skip the method, acknowledge the delivery and return {@code null} (or
	 * {@code Optional.empty()}). The right choice for message listeners: a duplicate that is not
	 * acknowledged stalls a Kafka partition or stays pending in a Redis Stream.
	 */
	ACKNOWLEDGE,

	/**
	 * Skip the method and throw {@code DuplicateMessageException}, without acknowledging. For callers
	 * that must tell the duplicate apart themselves (an HTTP endpoint answering 409, say).
	 */
	THROW,

	/**
	 * Skip the method, acknowledge the delivery and return the result the method returned when the
	 * key was processed: the method's return value is stored with the key (serialized as JSON,
	 * size-limited). A {@code @KafkaListener} with {@code @SendTo} then re-sends the same reply to a
	 * redelivered request. A key processed without a stored result returns {@code null}.
	 * @since 0.2.0
	 */
	RETURN_PREVIOUS

}
