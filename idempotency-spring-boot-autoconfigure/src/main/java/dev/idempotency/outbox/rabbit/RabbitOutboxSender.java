package dev.idempotency.outbox.rabbit;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import com.rabbitmq.client.Channel;
import dev.idempotency.core.MessageFields;
import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxSender;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.AmqpMessageReturnedException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.ReturnedMessage;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.AmqpNackReceivedException;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.support.RabbitExceptionTranslator;
import org.springframework.util.Assert;

/**
 * Sends outbox messages to RabbitMQ exchanges with publisher confirms and mandatory returns, over a
 * {@code CachingConnectionFactory} with {@code ConfirmType.CORRELATED} and publisher returns on.
 * The target (the destination without {@code rabbit:}) names the exchange and routing key as
 * {@link RabbitDestination} says. Each message is persistent and carries the message id as its AMQP
 * {@code message_id} property and {@value MessageFields#MESSAGE_ID} header, the message's own
 * headers, the {@value MessageFields#TRACEPARENT} header when the outbox captured the publisher's
 * trace context (unless the message's own headers have one), and the payload (UTF-8) with the
 * configured content type.
 * <p>
 * The returned future completes when the broker confirmed the message and did not return it: only
 * then is the row marked sent. The relay sends a whole batch before it waits for the confirms (at
 * most its send timeout), so a batch costs one wait, not one round trip per row. All messages go
 * over one channel of the sender's own, in the order they are sent, so they reach a queue in that
 * order; the channel is replaced once it closes. Before the first message to an exchange on a
 * channel, the sender checks on another channel that the exchange exists ({@code exchange.declare}
 * passive): a missing exchange fails that message alone, not the channel and the batch on it.
 * <p>
 * Which failures are the message's is decided by {@link #isMessageFailure(Throwable)}.
 *
 * @since 0.2.0
 */
public class RabbitOutboxSender implements OutboxSender, AutoCloseable {

	/** The destination prefix of RabbitMQ exchanges. */
	public static final String SCHEME = "rabbit";

	/** The content type messages are sent with unless configured otherwise. */
	public static final String DEFAULT_CONTENT_TYPE = MessageProperties.CONTENT_TYPE_JSON;

	private final ConnectionFactory connectionFactory;

	private final RabbitTemplate template;

	private final String contentType;

	private final AtomicLong correlations = new AtomicLong();

	private final Object lock = new Object();

	/** The channel all messages go over, opened at the first send and after it closed. */
	private @Nullable Channel channel;

	/** Exchanges known to exist, since the current channel was opened. */
	private final Set<String> exchanges = new HashSet<>();

	/**
	 * Creates a sender.
	 * @param connectionFactory a factory with correlated publisher confirms and publisher returns
	 * @param contentType the content type of every message, e.g. {@code application/json}
	 * @throws IllegalStateException if the factory does not confirm or return messages
	 */
	public RabbitOutboxSender(ConnectionFactory connectionFactory, String contentType) {
		if (!connectionFactory.isPublisherConfirms() || !connectionFactory.isPublisherReturns()) {
			throw new IllegalStateException("The outbox's RabbitMQ sender marks a row sent only once the broker "
					+ "confirmed it and did not return it as unroutable, so its ConnectionFactory needs correlated "
					+ "publisher confirms and publisher returns (confirms: " + connectionFactory.isPublisherConfirms()
					+ ", returns: " + connectionFactory.isPublisherReturns() + "). Set "
					+ "spring.rabbitmq.publisher-confirm-type=correlated and spring.rabbitmq.publisher-returns=true, or "
					+ "idempotency.outbox.rabbit.enabled=false if the outbox sends nothing to RabbitMQ.");
		}
		Assert.hasText(contentType, "contentType must not be empty");
		this.connectionFactory = connectionFactory;
		// A template of its own: the application's template keeps its callbacks and settings.
		this.template = new RabbitTemplate(connectionFactory);
		this.contentType = contentType;
	}

	@Override
	public String scheme() {
		return SCHEME;
	}

	@Override
	public CompletableFuture<?> send(String target, OutboxMessage message) {
		RabbitDestination destination = RabbitDestination.parse(target, message.key());
		Message amqp = toAmqp(message);
		// Unique per send: the channel finds the correlation of a returned message by this id.
		CorrelationData correlation = new CorrelationData(Long.toString(this.correlations.incrementAndGet()));
		synchronized (this.lock) {
			try {
				checkExchange(destination.exchange());
				Channel channel = channel();
				this.template.doSend(channel, destination.exchange(), destination.routingKey(), amqp, true,
						correlation);
			}
			catch (Exception ex) {
				discardChannel();
				return CompletableFuture.failedFuture(RabbitExceptionTranslator.convertRabbitAccessException(ex));
			}
		}
		return correlation.getFuture().thenApply((confirm) -> {
			ReturnedMessage returned = correlation.getReturned();
			if (returned != null) {
				throw new AmqpMessageReturnedException("Message " + message.messageId() + " was returned by the "
						+ "broker as unroutable: exchange '" + returned.getExchange() + "', routing key '"
						+ returned.getRoutingKey() + "': " + returned.getReplyCode() + " " + returned.getReplyText(),
						returned);
			}
			if (!confirm.ack()) {
				throw new AmqpNackReceivedException("Message " + message.messageId() + " was not confirmed by the "
						+ "broker: " + confirm.reason(), amqp);
			}
			return confirm;
		});
	}

	/**
	 * A failure is the message's only when the broker returned it as unroutable
	 * ({@link AmqpMessageReturnedException}: the exchange has no queue bound for its routing key).
	 * Everything else is the broker's or the network's and keeps the row pending: a connection that
	 * cannot be made or was lost, a channel closed by the broker (every message in flight on it fails
	 * alike), a negative confirm ({@link AmqpNackReceivedException}: the broker could not take it), an
	 * exchange that does not exist (as a Kafka topic that does not exist: its rows stay pending, with
	 * that error as their last error, until the exchange is declared), and anything unknown.
	 * @param failure what {@link #send} completed its future with
	 * @return whether the failure counts towards the message's attempts
	 */
	@Override
	public boolean isMessageFailure(Throwable failure) {
		int depth = 0;
		for (Throwable cause = failure; cause != null && depth < 16; cause = cause.getCause(), depth++) {
			if (cause instanceof AmqpMessageReturnedException) {
				return true;
			}
		}
		return false;
	}

	/** Closes the sender's channel; messages still in flight on it fail as not confirmed. */
	@Override
	public void close() {
		synchronized (this.lock) {
			discardChannel();
		}
	}

	private Message toAmqp(OutboxMessage message) {
		MessageProperties properties = new MessageProperties();
		properties.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
		properties.setContentType(this.contentType);
		properties.setContentEncoding(StandardCharsets.UTF_8.name());
		properties.setMessageId(message.messageId());
		for (Map.Entry<String, String> header : message.headers().entrySet()) {
			properties.setHeader(header.getKey(), header.getValue());
		}
		String traceparent = message.traceparent();
		if (traceparent != null && !message.headers().containsKey(MessageFields.TRACEPARENT)) {
			properties.setHeader(MessageFields.TRACEPARENT, traceparent);
		}
		properties.setHeader(MessageFields.MESSAGE_ID, message.messageId());
		return new Message(message.payload().getBytes(StandardCharsets.UTF_8), properties);
	}

	private Channel channel() {
		Channel channel = this.channel;
		if (channel != null && channel.isOpen()) {
			return channel;
		}
		discardChannel();
		channel = this.connectionFactory.createConnection().createChannel(false);
		// Routes the channel's confirms and returns to this sender's template.
		this.template.addListener(channel);
		this.channel = channel;
		return channel;
	}

	private void checkExchange(String exchange) {
		if (!exchange.isEmpty() && !this.exchanges.contains(exchange)) {
			// On another channel: a publish or a check naming a missing exchange closes its channel, and
			// every message awaiting its confirm there would fail with it.
			this.template.execute((channel) -> channel.exchangeDeclarePassive(exchange));
			this.exchanges.add(exchange);
		}
	}

	private void discardChannel() {
		Channel channel = this.channel;
		this.channel = null;
		this.exchanges.clear();
		if (channel != null) {
			try {
				channel.close();
			}
			catch (Exception ex) {
				// Closed already, with its connection or by the broker.
			}
		}
	}

}
