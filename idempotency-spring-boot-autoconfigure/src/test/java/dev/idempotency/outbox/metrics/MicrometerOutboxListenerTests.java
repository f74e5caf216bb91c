package dev.idempotency.outbox.metrics;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox relay's meters of {@link MicrometerOutboxListener}.
 */
class MicrometerOutboxListenerTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final MicrometerOutboxListener listener = new MicrometerOutboxListener(this.registry);

	@Test
	void sentMessagesAreCountedAndTheirLatencyTimedPerDestination() {
		this.listener.onOutboxSent("kafka:orders", Duration.ofMillis(200));
		this.listener.onOutboxSent("kafka:orders", Duration.ofMillis(600));
		this.listener.onOutboxSent("redis:payments", Duration.ofMillis(50));
		assertThat(this.registry.get(OutboxMeters.OUTBOX_PUBLISHED)
			.tag(OutboxMeters.DESTINATION_TAG, "kafka:orders")
			.counter()
			.count()).isEqualTo(2);
		Timer latency = this.registry.get(OutboxMeters.OUTBOX_LATENCY)
			.tag(OutboxMeters.DESTINATION_TAG, "kafka:orders")
			.timer();
		assertThat(latency.count()).isEqualTo(2);
		assertThat(latency.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(800.0);
		assertThat(this.registry.get(OutboxMeters.OUTBOX_PUBLISHED)
			.tag(OutboxMeters.DESTINATION_TAG, "redis:payments")
			.counter()
			.count()).isOne();
	}

	@Test
	void failedAndDeadMessagesAreTaggedWithTheRootCause() {
		this.listener.onOutboxSendFailed("kafka:orders",
				new IllegalStateException("send failed", new TimeoutException("no ack")));
		this.listener.onOutboxDead("kafka:orders", "m-1", new IllegalArgumentException("no sender"));
		assertThat(this.registry.get(OutboxMeters.OUTBOX_FAILED)
			.tags(OutboxMeters.DESTINATION_TAG, "kafka:orders", OutboxMeters.EXCEPTION_TAG, "TimeoutException")
			.counter()
			.count()).isOne();
		assertThat(this.registry.get(OutboxMeters.OUTBOX_DEAD)
			.tags(OutboxMeters.DESTINATION_TAG, "kafka:orders", OutboxMeters.EXCEPTION_TAG, "IllegalArgumentException")
			.counter()
			.count()).isOne();
	}

	@Test
	void noMetersAreRegisteredBeforeTheFirstEvent() {
		assertThat(this.registry.getMeters()).isEmpty();
	}

}
