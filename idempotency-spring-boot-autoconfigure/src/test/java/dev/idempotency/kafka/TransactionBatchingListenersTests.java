package dev.idempotency.kafka;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import dev.idempotency.annotation.Idempotent;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.support.Acknowledgment;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which {@code @KafkaListener} methods {@link TransactionBatchingListeners} switches to transaction
 * batching.
 */
class TransactionBatchingListenersTests {

	private static final Map<String, Object> UNSET = Map.of("batch", "", "containerPostProcessor", "");

	private final TransactionBatchingListeners listeners = new TransactionBatchingListeners();

	@Test
	void recordStyleIdempotentListenerIsSwitchedToABatchWithTheBatchingContainerPostProcessor() {
		assertThat(this.listeners.apply(UNSET, method("onPayload"))).containsEntry("batch", "true")
			.containsEntry("containerPostProcessor", TransactionBatchingContainers.BEAN_NAME);
		assertThat(this.listeners.apply(UNSET, method("onRecord"))).containsEntry("batch", "true");
	}

	@Test
	void listenersThatCannotBeBatchedAreLeftAsTheyAre() {
		for (String name : List.of("onBatch", "onReply", "onAcknowledged", "notIdempotent")) {
			assertThat(this.listeners.apply(UNSET, method(name))).as(name).isSameAs(UNSET);
		}
	}

	@Test
	void listenerThatSetsBatchOrItsOwnContainerPostProcessorIsLeftAsItIs() {
		Map<String, Object> optedOut = Map.of("batch", "false", "containerPostProcessor", "");
		Map<String, Object> own = Map.of("batch", "", "containerPostProcessor", "mine");
		assertThat(this.listeners.apply(optedOut, method("onPayload"))).isSameAs(optedOut);
		assertThat(this.listeners.apply(own, method("onPayload"))).isSameAs(own);
		assertThat(this.listeners.apply(UNSET, Listeners.class)).isSameAs(UNSET);
	}

	private static Method method(String name) {
		for (Method method : ReflectionUtils.getDeclaredMethods(Listeners.class)) {
			if (method.getName().equals(name)) {
				return method;
			}
		}
		throw new IllegalArgumentException(name);
	}

	static class Listeners {

		@Idempotent
		void onPayload(String payload) {
		}

		@Idempotent
		void onRecord(ConsumerRecord<String, String> record) {
		}

		@Idempotent(key = "#element")
		void onBatch(List<String> payloads) {
		}

		@Idempotent
		String onReply(String payload) {
			return payload;
		}

		@Idempotent
		void onAcknowledged(String payload, Acknowledgment acknowledgment) {
		}

		void notIdempotent(String payload) {
		}

	}

}
