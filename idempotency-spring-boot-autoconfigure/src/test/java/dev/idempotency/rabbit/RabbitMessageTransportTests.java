package dev.idempotency.rabbit;

import java.lang.reflect.Method;
import java.util.function.UnaryOperator;

import com.rabbitmq.client.ShutdownSignalException;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.AmqpConnectException;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RabbitMessageTransport}.
 */
class RabbitMessageTransportTests {

	private final RabbitMessageTransport transport = new RabbitMessageTransport();

	@Test
	void namesItsListenersByTheirId() throws Exception {
		assertThat(this.transport.name()).isEqualTo("rabbit");
		assertThat(this.transport.listenerAnnotationTypes()).containsExactly(RabbitListener.class);
		assertThat(this.transport.listenerId(annotation("named"))).isEqualTo("orders");
		assertThat(this.transport.listenerId(annotation("unnamed"))).isEmpty();
	}

	@Test
	void batchListenersAreTheOnesDeclaredSo() throws Exception {
		assertThat(this.transport.isBatchListener(annotation("batch"), UnaryOperator.identity())).isTrue();
		assertThat(this.transport.isBatchListener(annotation("named"), UnaryOperator.identity())).isFalse();
	}

	@Test
	void connectionFailuresAndClosedChannelsAreTheInfrastructures() {
		assertThat(this.transport.infrastructureFailureTypes()).contains(AmqpConnectException.class,
				ShutdownSignalException.class);
	}

	private static RabbitListener annotation(String method) {
		Method found = ReflectionUtils.findMethod(Listeners.class, method, String.class);
		return found.getAnnotation(RabbitListener.class);
	}

	static class Listeners {

		@RabbitListener(id = "orders", queues = "orders")
		void named(String order) {
		}

		@RabbitListener(queues = "orders")
		void unnamed(String order) {
		}

		@RabbitListener(queues = "orders", batch = "true")
		void batch(String order) {
		}

	}

}
