package dev.idempotency.rabbit;

import dev.idempotency.core.DeliveryContext;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RabbitDeliveryContexts}.
 */
class RabbitDeliveryContextsTests {

	private final RabbitDeliveryContexts contexts = new RabbitDeliveryContexts("message-id");

	@Test
	void theMessageIdPropertyComesFirst() {
		Message message = message("amqp-id", "header-id");
		assertThat(this.contexts.messageId(message)).isEqualTo("amqp-id");
	}

	@Test
	void theHeaderIsReadWhenThePropertyIsMissingOrEmpty() {
		assertThat(this.contexts.messageId(message(null, "header-id"))).isEqualTo("header-id");
		assertThat(this.contexts.messageId(message("", "header-id"))).isEqualTo("header-id");
		assertThat(new RabbitDeliveryContexts("x-id").messageId(message(null, "header-id"))).isNull();
	}

	@Test
	void aMessageWithNeitherHasNoId() {
		assertThat(this.contexts.messageId(message(null, null))).isNull();
		assertThat(this.contexts.messageId(message("", ""))).isNull();
	}

	@Test
	void aProducersIdThatLooksDerivedIsEscaped() {
		assertThat(this.contexts.messageId(message("~kafka:orders:0:1", null))).isEqualTo("~~kafka:orders:0:1");
	}

	@Test
	void theQueueIsTheNamespaceAndTheMessageAndHeadersAreVariables() {
		Message message = message("id-1", null);
		message.getMessageProperties().setConsumerQueue("orders");
		message.getMessageProperties().setHeader("tenant", "acme");
		DeliveryContext context = this.contexts.of(message, () -> {
		});
		assertThat(context.namespace()).isEqualTo("orders");
		assertThat(context.messageId()).isEqualTo("id-1");
		assertThat(context.variables()).containsEntry("message", message).containsEntry("queue", "orders");
		assertThat(context.variables().get("headers")).isEqualTo(java.util.Map.of("tenant", "acme"));
		assertThat(context.acknowledger()).isNotNull();
	}

	private static Message message(String messageId, String header) {
		MessageProperties properties = new MessageProperties();
		properties.setMessageId(messageId);
		if (header != null) {
			properties.setHeader("message-id", header);
		}
		return new Message(new byte[0], properties);
	}

}
