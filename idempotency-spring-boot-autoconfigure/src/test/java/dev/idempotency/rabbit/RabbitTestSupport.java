package dev.idempotency.rabbit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * The local RabbitMQ broker (127.0.0.1:5672, guest/guest) for the integration tests: unique names,
 * publishing with or without a message id, reading a dead-letter queue.
 */
final class RabbitTestSupport {

	static final String[] BROKER_PROPERTIES = { "spring.rabbitmq.host=127.0.0.1", "spring.rabbitmq.port=5672",
			"spring.rabbitmq.username=guest", "spring.rabbitmq.password=guest" };

	private RabbitTestSupport() {
	}

	/** A name no other test run uses: {@code <prefix>-<8 hex digits>}. */
	static String uniqueName(String prefix) {
		return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	static CachingConnectionFactory connectionFactory() {
		CachingConnectionFactory connectionFactory = new CachingConnectionFactory("127.0.0.1", 5672);
		connectionFactory.setUsername("guest");
		connectionFactory.setPassword("guest");
		return connectionFactory;
	}

	/** Publishes a JSON order to a queue through the default exchange. */
	static void send(RabbitTemplate rabbit, String queue, @Nullable String messageId, String orderId, int points) {
		sendRaw(rabbit, queue, messageId, "{\"orderId\":\"" + orderId + "\",\"points\":" + points + "}");
	}

	/** Publishes a body, declared as JSON, to a queue through the default exchange. */
	static void sendRaw(RabbitTemplate rabbit, String queue, @Nullable String messageId, String json) {
		MessageProperties properties = new MessageProperties();
		properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
		if (messageId != null) {
			properties.setMessageId(messageId);
		}
		rabbit.send("", queue, new Message(json.getBytes(StandardCharsets.UTF_8), properties));
	}

	/** Takes every message of a queue (acknowledged). */
	static List<Message> drain(RabbitTemplate rabbit, String queue) {
		List<Message> messages = new ArrayList<>();
		Message message;
		while ((message = rabbit.receive(queue)) != null) {
			messages.add(message);
		}
		return messages;
	}

	/** Messages ready in a queue, not counting those delivered and not yet acknowledged. */
	static int ready(RabbitAdmin admin, String queue) {
		var info = admin.getQueueInfo(queue);
		return (info != null) ? (int) info.getMessageCount() : -1;
	}

	record Order(String orderId, int points) {
	}

}
