package dev.idempotency.redis.stream;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RedisStreamMessageTransport}.
 */
class RedisStreamMessageTransportTests {

	private final RedisStreamMessageTransport transport = new RedisStreamMessageTransport();

	@Test
	void isNamedRedisStream() {
		assertThat(this.transport.name()).isEqualTo("redis-stream").isEqualTo(RedisStreamMessageTransport.NAME);
	}

	@Test
	void listenersAreRedisStreamListenerMethods() {
		assertThat(this.transport.listenerAnnotationTypes()).containsExactly(RedisStreamListener.class);
	}

	@Test
	void listenerIdIsTheAnnotationsIdAsWritten() {
		assertThat(this.transport.listenerId(streamListener("named"))).isEqualTo("stream-orders");
		assertThat(this.transport.listenerId(streamListener("placeholder"))).isEqualTo("${app.listener}");
		assertThat(this.transport.listenerId(streamListener("unnamed"))).isEmpty();
	}

	@Test
	void listenersReceiveOneEntryAtATime() {
		assertThat(this.transport.isBatchListener(streamListener("named"), (value) -> "true")).isFalse();
	}

	@Test
	void redisClientExceptionsAreContributedByTheRedisTechnologyNotTheTransport() {
		assertThat(this.transport.infrastructureFailureTypes()).isEmpty();
	}

	@Test
	void anotherTransportsAnnotationIsRefused() {
		KafkaListener kafkaListener = method("kafka").getAnnotation(KafkaListener.class);
		assertThatIllegalArgumentException().isThrownBy(() -> this.transport.listenerId(kafkaListener))
			.withMessageContaining("Not a @RedisStreamListener");
	}

	private static RedisStreamListener streamListener(String methodName) {
		return method(methodName).getAnnotation(RedisStreamListener.class);
	}

	private static Method method(String methodName) {
		Method method = ReflectionUtils.findMethod(Listeners.class, methodName, String.class);
		assertThat(method).as(methodName).isNotNull();
		return method;
	}

	static class Listeners {

		@RedisStreamListener(id = "stream-orders", stream = "orders", group = "points")
		void named(String order) {
		}

		@RedisStreamListener(id = "${app.listener}", stream = "orders", group = "points")
		void placeholder(String order) {
		}

		@RedisStreamListener(stream = "orders", group = "points")
		void unnamed(String order) {
		}

		@KafkaListener(topics = "orders")
		void kafka(String order) {
		}

	}

}
