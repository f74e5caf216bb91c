package dev.idempotency.outbox.rabbit;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import org.springframework.amqp.AmqpConnectException;
import org.springframework.amqp.AmqpIOException;
import org.springframework.amqp.core.AmqpMessageReturnedException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.ReturnedMessage;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory.ConfirmType;
import org.springframework.amqp.rabbit.core.AmqpNackReceivedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Which RabbitMQ failures are the message's, the mapping of a target to an exchange and routing
 * key, and the connection factory the sender needs. No broker: the factories never connect.
 */
class RabbitOutboxSenderTests {

	@Test
	void onlyAReturnedMessageIsTheMessagesFailure() {
		RabbitOutboxSender sender = new RabbitOutboxSender(confirmingFactory(true),
				RabbitOutboxSender.DEFAULT_CONTENT_TYPE);
		AmqpMessageReturnedException returned = new AmqpMessageReturnedException("returned", new ReturnedMessage(
				new Message(new byte[0], new MessageProperties()), 312, "NO_ROUTE", "orders", "k"));
		assertThat(sender.isMessageFailure(returned)).isTrue();
		assertThat(sender.isMessageFailure(new IllegalStateException("wrapped", returned))).isTrue();
		assertThat(sender.isMessageFailure(new AmqpNackReceivedException("nack", new Message(new byte[0]))))
			.isFalse();
		assertThat(sender.isMessageFailure(new AmqpConnectException(new IOException("refused")))).isFalse();
		assertThat(sender.isMessageFailure(new AmqpIOException(new IOException("NOT_FOUND - no exchange 'x'"))))
			.isFalse();
		assertThat(sender.isMessageFailure(new RuntimeException("unknown"))).isFalse();
	}

	@Test
	void aFactoryWithoutConfirmsOrReturnsFailsWithTheSettingsToChange() {
		assertThatIllegalStateException()
			.isThrownBy(() -> new RabbitOutboxSender(new CachingConnectionFactory(),
					RabbitOutboxSender.DEFAULT_CONTENT_TYPE))
			.withMessageContaining("spring.rabbitmq.publisher-confirm-type=correlated")
			.withMessageContaining("spring.rabbitmq.publisher-returns=true")
			.withMessageContaining("idempotency.outbox.rabbit.enabled=false");
		assertThatIllegalStateException()
			.isThrownBy(() -> new RabbitOutboxSender(confirmingFactory(false), RabbitOutboxSender.DEFAULT_CONTENT_TYPE))
			.withMessageContaining("returns: false");
		CachingConnectionFactory simple = new CachingConnectionFactory();
		simple.setPublisherConfirmType(ConfirmType.SIMPLE);
		simple.setPublisherReturns(true);
		assertThatIllegalStateException()
			.isThrownBy(() -> new RabbitOutboxSender(simple, RabbitOutboxSender.DEFAULT_CONTENT_TYPE))
			.withMessageContaining("confirms: false");
	}

	@Test
	void targetNamesTheExchangeAndTheRoutingKeyOrTheRowsKeyIsTheRoutingKey() {
		assertThat(RabbitDestination.parse("orders", "acct-1")).isEqualTo(new RabbitDestination("orders", "acct-1"));
		assertThat(RabbitDestination.parse("orders", null)).isEqualTo(new RabbitDestination("orders", ""));
		assertThat(RabbitDestination.parse("orders/created.eu", "acct-1"))
			.isEqualTo(new RabbitDestination("orders", "created.eu"));
		assertThat(RabbitDestination.parse("/order-queue", "acct-1"))
			.isEqualTo(new RabbitDestination("", "order-queue"));
		assertThat(RabbitDestination.parse("orders/a/b", null)).isEqualTo(new RabbitDestination("orders", "a/b"));
	}

	static CachingConnectionFactory confirmingFactory(boolean returns) {
		CachingConnectionFactory factory = new CachingConnectionFactory("127.0.0.1", 5672);
		factory.setPublisherConfirmType(ConfirmType.CORRELATED);
		factory.setPublisherReturns(returns);
		return factory;
	}

}
