package dev.idempotency.rabbit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.MessageAcknowledger;
import dev.idempotency.core.MessageIds;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;

/**
 * Describes an AMQP message as the {@link DeliveryContext} of its delivery: the message id (the
 * AMQP {@code message_id} property, else the configured header, else none: RabbitMQ gives a message
 * no id of its own that survives a redelivery, so an empty {@code @Idempotent(key)} is then rejected),
 * the queue it was consumed from as the namespace, and the SpEL variables {@code #message} (the AMQP
 * {@link Message}), {@code #headers} (its headers) and {@code #queue}. Stateless and thread-safe.
 *
 * @since 0.2.0
 */
public final class RabbitDeliveryContexts {

	private final String messageIdHeader;

	/**
	 * Creates the contexts.
	 * @param messageIdHeader the header read when a message has no {@code message_id} property
	 */
	public RabbitDeliveryContexts(String messageIdHeader) {
		this.messageIdHeader = messageIdHeader;
	}

	/**
	 * Describes one delivery.
	 * @param message the message
	 * @param acknowledger acknowledges it after commit
	 * @return its delivery context
	 */
	public DeliveryContext of(Message message, MessageAcknowledger acknowledger) {
		MessageProperties properties = message.getMessageProperties();
		Map<String, Object> variables = new LinkedHashMap<>();
		variables.put("message", message);
		variables.put("headers", Map.copyOf(nonNullValues(properties.getHeaders())));
		String queue = properties.getConsumerQueue();
		if (queue != null) {
			variables.put("queue", queue);
		}
		return new DeliveryContext(messageId(message), queue, variables, acknowledger, List.of());
	}

	/**
	 * The message's id: its {@code message_id} property if not empty, else the configured header if
	 * not empty, as {@link MessageIds#ofProducer} writes a producer's id.
	 * @param message the message
	 * @return the message id, or {@code null} when the message carries none
	 */
	public @Nullable String messageId(Message message) {
		MessageProperties properties = message.getMessageProperties();
		String id = properties.getMessageId();
		if (id == null || id.isEmpty()) {
			Object header = properties.getHeaders().get(this.messageIdHeader);
			id = (header != null) ? header.toString() : null;
		}
		return (id != null && !id.isEmpty()) ? MessageIds.ofProducer(id) : null;
	}

	private static Map<String, Object> nonNullValues(Map<String, @Nullable Object> headers) {
		Map<String, Object> values = new LinkedHashMap<>();
		headers.forEach((name, value) -> {
			if (value != null) {
				values.put(name, value);
			}
		});
		return values;
	}

}
