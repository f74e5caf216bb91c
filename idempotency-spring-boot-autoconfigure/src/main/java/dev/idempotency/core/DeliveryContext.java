package dev.idempotency.core;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The message being delivered on the current thread, as a transport adapter describes it.
 *
 * @param messageId the message's id (the {@code message-id} header, else the transport's own id such
 * as {@code topic:partition:offset}); the key when {@code @Idempotent(key)} is empty
 * @param namespace the default namespace (the listener's group id), or {@code null}
 * @param variables extra SpEL variables for the key expression, e.g. {@code record}, {@code headers}
 * @param acknowledger acknowledges the delivery after commit, or {@code null} when the container
 * acknowledges by itself
 * @since 0.1.0
 */
public record DeliveryContext(@Nullable String messageId, @Nullable String namespace, Map<String, Object> variables,
		@Nullable MessageAcknowledger acknowledger) {

	/** The message id header written by the outbox relay and read by consumers. */
	public static final String MESSAGE_ID_HEADER = "message-id";

	public DeliveryContext {
		variables = Map.copyOf(variables);
	}

}
