package dev.idempotency.redis.stream;

import java.util.ArrayList;
import java.util.List;

import dev.idempotency.core.DeliveryListener;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link StreamBinding} tells every {@link DeliveryListener} of dead letters, and only the
 * {@link StreamConsumerListener}s of the consumer group's events.
 */
class StreamBindingTests {

	private final List<String> told = new ArrayList<>();

	@Test
	void consumerGroupEventsReachOnlyStreamConsumerListeners() {
		DeliveryListener plain = new DeliveryListener() {

			@Override
			public void onDeadLettered(String source, String destination, Throwable cause) {
				StreamBindingTests.this.told.add("plain dead-lettered " + source);
			}

		};
		StreamConsumerListener stream = new StreamConsumerListener() {

			@Override
			public void onDeadLettered(String source, String destination, Throwable cause) {
				StreamBindingTests.this.told.add("stream dead-lettered " + source);
			}

			@Override
			public void onStreamReclaimed(String stream, String group, int count) {
				StreamBindingTests.this.told.add("stream reclaimed " + stream + "/" + group + " " + count);
			}

		};
		StreamBinding binding = new StreamBinding("orders", "points", () -> List.of(plain, stream));
		binding.notifyStreamListeners((listener) -> listener.onStreamReclaimed("orders", "points", 2));
		binding.notifyListeners((listener) -> listener.onDeadLettered("orders", "orders.dlq", new RuntimeException()));
		assertThat(this.told).containsExactly("stream reclaimed orders/points 2", "plain dead-lettered orders",
				"stream dead-lettered orders");
	}

	@Test
	void aFailingStreamListenerDoesNotStopTheOthers() {
		StreamConsumerListener failing = new StreamConsumerListener() {

			@Override
			public void onStreamGroupRecreated(String stream, String group) {
				throw new IllegalStateException("boom");
			}

		};
		StreamConsumerListener counting = new StreamConsumerListener() {

			@Override
			public void onStreamGroupRecreated(String stream, String group) {
				StreamBindingTests.this.told.add("recreated " + group);
			}

		};
		new StreamBinding("orders", "points", () -> List.of(failing, counting))
			.notifyStreamListeners((listener) -> listener.onStreamGroupRecreated("orders", "points"));
		assertThat(this.told).containsExactly("recreated points");
	}

}
