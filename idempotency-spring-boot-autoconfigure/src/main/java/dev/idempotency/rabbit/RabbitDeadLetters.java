package dev.idempotency.rabbit;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import dev.idempotency.core.DeliveryListener;
import dev.idempotency.support.Listeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.AmqpException;
import org.springframework.amqp.AmqpIOException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.listener.ListenerExecutionFailedException;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.RabbitUtils;
import org.springframework.amqp.rabbit.support.DefaultMessagePropertiesConverter;
import org.springframework.amqp.rabbit.support.MessagePropertiesConverter;
import org.springframework.amqp.rabbit.support.RabbitExceptionTranslator;

/**
 * Gives up a delivery. When its queue's dead-letter exchange is known (from the application's
 * {@code Queue} declaration or the properties), the adapter publishes a copy there itself, with the
 * cause in headers ({@link RabbitDeadLetterHeaders}), waits for the broker's confirm (mandatory: an
 * unroutable dead letter is not confirmed as routed) and then acknowledges the original; the
 * broker's own dead-lettering cannot add headers. When it is not known, the delivery is rejected
 * without requeue ({@code basic.nack}), so that the broker dead-letters it through whatever
 * dead-letter exchange the queue has, with {@code x-death} but without the cause, which is logged.
 * A crash between the confirm and the acknowledgement leaves a copy in the dead-letter queue and
 * the original redelivered (and dead-lettered again if it still fails). Thread-safe.
 *
 * @since 0.2.0
 */
public final class RabbitDeadLetters {

	private static final Log logger = LogFactory.getLog(RabbitDeadLetters.class);

	/** Most characters of the stack trace header. */
	static final int STACKTRACE_LIMIT = 4096;

	private final ConnectionFactory connectionFactory;

	private final Function<String, @Nullable RabbitDeadLetterRoute> routes;

	private final Duration confirmTimeout;

	private final Supplier<? extends List<? extends DeliveryListener>> listeners;

	private final MessagePropertiesConverter converter = new DefaultMessagePropertiesConverter();

	/**
	 * Creates the dead letters.
	 * @param connectionFactory opens the channel dead letters are published on
	 * @param routes the dead-letter route of a queue, {@code null} when unknown
	 * @param confirmTimeout longest wait for the broker's confirm of a dead letter
	 * @param listeners told of each dead letter
	 */
	public RabbitDeadLetters(ConnectionFactory connectionFactory,
			Function<String, @Nullable RabbitDeadLetterRoute> routes, Duration confirmTimeout,
			Supplier<? extends List<? extends DeliveryListener>> listeners) {
		this.connectionFactory = connectionFactory;
		this.routes = routes;
		this.confirmTimeout = confirmTimeout;
		this.listeners = listeners;
	}

	/**
	 * The dead-letter route of a queue.
	 * @param queue the queue
	 * @return its route, or {@code null} when the adapter does not know it
	 */
	public @Nullable RabbitDeadLetterRoute routeOf(String queue) {
		return this.routes.apply(queue);
	}

	/**
	 * Gives up a delivery: publishes it to its queue's dead-letter exchange with the cause and
	 * acknowledges it, or rejects it to the broker's dead-lettering.
	 * @param message the message
	 * @param acknowledger the delivery's acknowledger
	 * @param cause why it is given up
	 * @param reason the {@link RabbitDeadLetterHeaders#REASON} header's value
	 * @param attempts attempts made in this delivery
	 * @throws AmqpException if the dead letter could not be published or the delivery not settled
	 * (the delivery is then not settled)
	 */
	void deadLetter(Message message, RabbitAcknowledger acknowledger, Throwable cause, String reason, int attempts) {
		MessageProperties properties = message.getMessageProperties();
		String queue = (properties.getConsumerQueue() != null) ? properties.getConsumerQueue() : "";
		RabbitDeadLetterRoute route = this.routes.apply(queue);
		Throwable root = decisive(cause);
		String destination;
		if (route != null) {
			publish(message, route, headers(message, queue, cause, reason, attempts));
			acknowledger.acknowledge();
			destination = route.exchange();
			logger.warn("Message " + describe(message) + " of queue '" + queue + "' dead-lettered to exchange '"
					+ route.exchange() + "' (" + reason + " after " + attempts + " attempt(s)): " + root);
		}
		else {
			acknowledger.rejectToDeadLetterExchange();
			destination = "x-dead-letter-exchange";
			logger.error("Message " + describe(message) + " of queue '" + queue + "' rejected to the queue's "
					+ "dead-letter exchange, if it has one (" + reason + " after " + attempts + " attempt(s)); its "
					+ "dead-letter exchange is not declared in this application, so the cause is only in this log; "
					+ "declare the queue as a bean with x-dead-letter-exchange or set "
					+ "idempotency.rabbit.dead-letter.exchange", cause);
		}
		Listeners.notifyEach(this.listeners.get(),
				(listener) -> listener.onDeadLettered(queue, destination, cause), "dead-lettered");
	}

	private Map<String, Object> headers(Message message, String queue, Throwable cause, String reason, int attempts) {
		MessageProperties properties = message.getMessageProperties();
		Throwable root = decisive(cause);
		Map<String, Object> headers = new LinkedHashMap<>();
		// The listener's own failure, not its innermost cause: the type it threw, with its message.
		headers.put(RabbitDeadLetterHeaders.EXCEPTION_TYPE, root.getClass().getName());
		headers.put(RabbitDeadLetterHeaders.EXCEPTION_MESSAGE, String.valueOf(root.getMessage()));
		headers.put(RabbitDeadLetterHeaders.EXCEPTION_STACKTRACE, stackTrace(cause));
		headers.put(RabbitDeadLetterHeaders.REASON, reason);
		headers.put(RabbitDeadLetterHeaders.ORIGINAL_QUEUE, queue);
		headers.put(RabbitDeadLetterHeaders.ORIGINAL_EXCHANGE, nonNull(properties.getReceivedExchange()));
		headers.put(RabbitDeadLetterHeaders.ORIGINAL_ROUTING_KEY, nonNull(properties.getReceivedRoutingKey()));
		headers.put(RabbitDeadLetterHeaders.ATTEMPTS, attempts);
		return headers;
	}

	private void publish(Message message, RabbitDeadLetterRoute route, Map<String, Object> causeHeaders) {
		MessageProperties properties = message.getMessageProperties();
		MessageProperties copy = new MessageProperties();
		copy.setContentType(properties.getContentType());
		copy.setContentEncoding(properties.getContentEncoding());
		copy.setMessageId(properties.getMessageId());
		copy.setCorrelationId(properties.getCorrelationId());
		copy.setType(properties.getType());
		copy.setTimestamp(properties.getTimestamp());
		copy.setAppId(properties.getAppId());
		copy.setUserId(properties.getUserId());
		copy.setPriority(properties.getPriority());
		copy.setDeliveryMode(properties.getReceivedDeliveryMode());
		properties.getHeaders().forEach(copy::setHeader);
		causeHeaders.forEach(copy::setHeader);
		AMQP.BasicProperties basic = this.converter.fromMessageProperties(copy, "UTF-8");
		publish(route.exchange(), route.routingKeyFor(properties.getReceivedRoutingKey()), basic, message.getBody());
	}

	/**
	 * Publishes one message on a channel of its own in confirm mode, mandatory, and waits for the
	 * confirm.
	 * @param exchange the exchange
	 * @param routingKey the routing key
	 * @param properties the message's properties
	 * @param body the message's body
	 * @throws AmqpException if the broker did not confirm it, or returned it as unroutable
	 */
	void publish(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body) {
		Channel channel = null;
		try (Connection connection = this.connectionFactory.createConnection()) {
			channel = connection.createChannel(false);
			AtomicBoolean returned = new AtomicBoolean();
			channel.addReturnListener((returnMessage) -> returned.set(true));
			channel.confirmSelect();
			channel.basicPublish(exchange, routingKey, true, properties, body);
			channel.waitForConfirmsOrDie(this.confirmTimeout.toMillis());
			if (returned.get()) {
				throw new UnroutableDeadLetterException("The dead letter was returned unroutable by exchange '"
						+ exchange + "' with routing key '" + routingKey + "': bind a queue to it");
			}
		}
		catch (UnroutableDeadLetterException ex) {
			throw ex;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AmqpIOException("Interrupted while waiting for the broker's confirm", new IOException(ex));
		}
		catch (IOException | TimeoutException | RuntimeException ex) {
			throw RabbitExceptionTranslator.convertRabbitAccessException(ex);
		}
		finally {
			if (channel != null) {
				// In confirm mode and with a return listener: not for the connection factory's cache.
				RabbitUtils.setPhysicalCloseRequired(channel, true);
				RabbitUtils.closeChannel(channel);
			}
		}
	}

	/**
	 * The failure as the listener (or the converter, or the interceptor) threw it, without the
	 * container's {@link ListenerExecutionFailedException} around it.
	 */
	static Throwable decisive(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof ListenerExecutionFailedException && cause.getCause() != null
				&& cause.getCause() != cause) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static String describe(Message message) {
		String id = message.getMessageProperties().getMessageId();
		return (id != null) ? "'" + id + "'" : "#" + message.getMessageProperties().getDeliveryTag();
	}

	private static String nonNull(@Nullable String value) {
		return (value != null) ? value : "";
	}

	private static String stackTrace(Throwable cause) {
		StringWriter trace = new StringWriter();
		cause.printStackTrace(new PrintWriter(trace));
		String text = trace.toString();
		return (text.length() > STACKTRACE_LIMIT) ? text.substring(0, STACKTRACE_LIMIT) : text;
	}

	/**
	 * The broker returned a dead letter as unroutable: its dead-letter exchange has no binding for it.
	 */
	static final class UnroutableDeadLetterException extends AmqpException {

		private static final long serialVersionUID = 1L;

		UnroutableDeadLetterException(String message) {
			super(message);
		}

	}

}
