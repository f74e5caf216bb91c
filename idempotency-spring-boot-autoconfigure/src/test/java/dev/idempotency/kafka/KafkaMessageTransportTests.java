package dev.idempotency.kafka;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.function.UnaryOperator;

import dev.idempotency.redis.stream.RedisStreamListener;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link KafkaMessageTransport}.
 */
class KafkaMessageTransportTests {

	private static final UnaryOperator<String> VERBATIM = UnaryOperator.identity();

	private final KafkaMessageTransport transport = new KafkaMessageTransport();

	@Test
	void isNamedKafka() {
		assertThat(this.transport.name()).isEqualTo("kafka").isEqualTo(KafkaMessageTransport.NAME);
	}

	@Test
	void listenersAreKafkaListenerMethodsAndClasses() {
		assertThat(this.transport.listenerAnnotationTypes()).containsExactly(KafkaListener.class);
	}

	@Test
	void listenerIdIsTheAnnotationsIdAsWritten() {
		assertThat(this.transport.listenerId(kafkaListener("named"))).isEqualTo("orders");
		assertThat(this.transport.listenerId(kafkaListener("placeholder"))).isEqualTo("${app.listener}");
		assertThat(this.transport.listenerId(kafkaListener("unnamed"))).isEmpty();
		assertThat(this.transport.listenerId(Listeners.class.getAnnotation(KafkaListener.class))).isEqualTo("handlers");
	}

	@Test
	void batchListenerIsDeclaredByTheBatchAttributeWithPlaceholders() {
		assertThat(this.transport.isBatchListener(kafkaListener("batch"), VERBATIM)).isTrue();
		assertThat(this.transport.isBatchListener(kafkaListener("batchUpperCase"), VERBATIM)).isTrue();
		assertThat(this.transport.isBatchListener(kafkaListener("named"), VERBATIM)).isFalse();
		assertThat(this.transport.isBatchListener(kafkaListener("batchPlaceholder"), VERBATIM)).isFalse();
		Map<String, String> properties = Map.of("${app.batch}", "true");
		assertThat(this.transport.isBatchListener(kafkaListener("batchPlaceholder"),
				(value) -> properties.getOrDefault(value, value)))
			.isTrue();
	}

	@Test
	void retriableClientExceptionsAreTheInfrastructures() {
		assertThat(this.transport.infrastructureFailureTypes()).containsExactly(RetriableException.class);
	}

	@Test
	void anotherTransportsAnnotationIsRefused() {
		RedisStreamListener streamListener = method("stream").getAnnotation(RedisStreamListener.class);
		assertThatIllegalArgumentException().isThrownBy(() -> this.transport.listenerId(streamListener))
			.withMessageContaining("Not a @KafkaListener");
	}

	private static KafkaListener kafkaListener(String methodName) {
		return method(methodName).getAnnotation(KafkaListener.class);
	}

	private static Method method(String methodName) {
		Method method = ReflectionUtils.findMethod(Listeners.class, methodName, String.class);
		assertThat(method).as(methodName).isNotNull();
		return method;
	}

	@KafkaListener(id = "handlers", topics = "orders")
	static class Listeners {

		@KafkaListener(id = "orders", topics = "orders")
		void named(String order) {
		}

		@KafkaListener(id = "${app.listener}", topics = "orders")
		void placeholder(String order) {
		}

		@KafkaListener(topics = "orders")
		void unnamed(String order) {
		}

		@KafkaListener(topics = "orders", batch = "true")
		void batch(String order) {
		}

		@KafkaListener(topics = "orders", batch = "TRUE")
		void batchUpperCase(String order) {
		}

		@KafkaListener(topics = "orders", batch = "${app.batch}")
		void batchPlaceholder(String order) {
		}

		@RedisStreamListener(stream = "orders", group = "points")
		void stream(String order) {
		}

	}

}
