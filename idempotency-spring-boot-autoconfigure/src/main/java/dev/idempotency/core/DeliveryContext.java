package dev.idempotency.core;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The message being delivered on the current thread, as a transport adapter describes it.
 *
 * @param messageId the message's id as {@link MessageIds} writes it (the {@code message-id} header,
 * else the transport's own id such as {@code ~kafka:topic:partition:offset}); the key when
 * {@code @Idempotent(key)} is empty
 * @param namespace the default namespace (the listener's group id), or {@code null}
 * @param variables extra SpEL variables for the key expression, e.g. {@code record}, {@code headers}
 * @param acknowledger acknowledges the delivery after commit, or {@code null} when the container
 * acknowledges by itself
 * @param elements for a batch delivery, one context per message, in the order the listener's
 * {@code List} parameter holds them; empty for a single message
 * @since 0.1.0
 */
public record DeliveryContext(@Nullable String messageId, @Nullable String namespace, Map<String, Object> variables,
		@Nullable MessageAcknowledger acknowledger, List<DeliveryContext> elements) {

	/**
	 * The message id header written by the outbox relay and read by consumers.
	 * @see MessageFields#MESSAGE_ID
	 */
	public static final String MESSAGE_ID_HEADER = MessageFields.MESSAGE_ID;

	public DeliveryContext {
		variables = Map.copyOf(variables);
		elements = List.copyOf(elements);
	}

	/**
	 * Describes a single message.
	 * @param messageId the message's id, or {@code null}
	 * @param namespace the default namespace, or {@code null}
	 * @param variables extra SpEL variables for the key expression
	 * @param acknowledger acknowledges after commit, or {@code null}
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #DeliveryContext(String, String, Map,
	 * MessageAcknowledger, List)} with {@code List.of()}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public DeliveryContext(@Nullable String messageId, @Nullable String namespace, Map<String, Object> variables,
			@Nullable MessageAcknowledger acknowledger) {
		this(messageId, namespace, variables, acknowledger, List.of());
	}

	/**
	 * Describes a batch of messages delivered to one listener call.
	 * @param namespace the default namespace, or {@code null}
	 * @param variables extra SpEL variables shared by the batch
	 * @param acknowledger acknowledges the whole batch after commit, or {@code null}
	 * @param elements one context per message, in list order, not empty
	 * @return the batch's context
	 */
	public static DeliveryContext batch(@Nullable String namespace, Map<String, Object> variables,
			@Nullable MessageAcknowledger acknowledger, List<DeliveryContext> elements) {
		if (elements.isEmpty()) {
			throw new IllegalArgumentException("a batch has at least one message");
		}
		return new DeliveryContext(null, namespace, variables, acknowledger, elements);
	}

	/** Whether this context describes a batch ({@link #elements()} not empty). */
	public boolean isBatch() {
		return !this.elements.isEmpty();
	}

}
