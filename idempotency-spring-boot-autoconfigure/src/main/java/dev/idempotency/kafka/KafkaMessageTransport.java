package dev.idempotency.kafka;

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.function.UnaryOperator;

import dev.idempotency.core.MessageTransport;
import org.apache.kafka.common.errors.RetriableException;

import org.springframework.kafka.annotation.KafkaListener;

/**
 * Kafka as a {@link MessageTransport}: listeners are {@link KafkaListener @KafkaListener} methods,
 * or the {@code @KafkaHandler} methods of a {@code @KafkaListener} class; a listener is named by
 * {@code @KafkaListener(id)} and receives batches with {@code @KafkaListener(batch = "true")}; the
 * client's {@link RetriableException}s (a broker not available, a request timed out, a network
 * failure) are the infrastructure's. Stateless and thread-safe.
 *
 * @since 0.2.0
 */
public final class KafkaMessageTransport implements MessageTransport {

	/** The transport's name. */
	public static final String NAME = "kafka";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public List<Class<? extends Annotation>> listenerAnnotationTypes() {
		return List.of(KafkaListener.class);
	}

	@Override
	public String listenerId(Annotation listener) {
		return kafkaListener(listener).id();
	}

	@Override
	public boolean isBatchListener(Annotation listener, UnaryOperator<String> placeholders) {
		return "true".equalsIgnoreCase(placeholders.apply(kafkaListener(listener).batch()));
	}

	@Override
	public List<Class<? extends Throwable>> infrastructureFailureTypes() {
		return List.of(RetriableException.class);
	}

	private static KafkaListener kafkaListener(Annotation listener) {
		if (listener instanceof KafkaListener kafkaListener) {
			return kafkaListener;
		}
		throw new IllegalArgumentException("Not a @KafkaListener: " + listener);
	}

	@Override
	public String toString() {
		return NAME;
	}

}
