package dev.idempotency.rabbit;

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.function.UnaryOperator;

import com.rabbitmq.client.ShutdownSignalException;
import dev.idempotency.core.MessageTransport;

import org.springframework.amqp.AmqpConnectException;
import org.springframework.amqp.AmqpIOException;
import org.springframework.amqp.AmqpResourceNotAvailableException;
import org.springframework.amqp.AmqpTimeoutException;
import org.springframework.amqp.rabbit.annotation.RabbitListener;

/**
 * RabbitMQ as a {@link MessageTransport}: listeners are {@link RabbitListener @RabbitListener}
 * methods, or the {@code @RabbitHandler} methods of a {@code @RabbitListener} class; a listener is
 * named by {@code @RabbitListener(id)} and receives batches with {@code @RabbitListener(batch = "true")};
 * the client's connection, I/O and timeout failures and a closed channel or connection are the
 * infrastructure's. Stateless and thread-safe.
 *
 * @since 0.2.0
 */
public final class RabbitMessageTransport implements MessageTransport {

	/** The transport's name. */
	public static final String NAME = "rabbit";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public List<Class<? extends Annotation>> listenerAnnotationTypes() {
		return List.of(RabbitListener.class);
	}

	@Override
	public String listenerId(Annotation listener) {
		return rabbitListener(listener).id();
	}

	@Override
	public boolean isBatchListener(Annotation listener, UnaryOperator<String> placeholders) {
		return "true".equalsIgnoreCase(placeholders.apply(rabbitListener(listener).batch()));
	}

	@Override
	public List<Class<? extends Throwable>> infrastructureFailureTypes() {
		return List.of(AmqpConnectException.class, AmqpIOException.class, AmqpTimeoutException.class,
				AmqpResourceNotAvailableException.class, ShutdownSignalException.class);
	}

	private static RabbitListener rabbitListener(Annotation listener) {
		if (listener instanceof RabbitListener rabbitListener) {
			return rabbitListener;
		}
		throw new IllegalArgumentException("Not a @RabbitListener: " + listener);
	}

	@Override
	public String toString() {
		return NAME;
	}

}
