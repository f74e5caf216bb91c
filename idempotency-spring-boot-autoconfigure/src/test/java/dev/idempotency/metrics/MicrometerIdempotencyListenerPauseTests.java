package dev.idempotency.metrics;

import java.time.Duration;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fail-closed meters of {@link MicrometerIdempotencyListener}.
 */
class MicrometerIdempotencyListenerPauseTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final MicrometerIdempotencyListener listener = new MicrometerIdempotencyListener(this.registry);

	@Test
	void pausedGaugeFollowsEachListenerAndPausesAreCounted() {
		this.listener.onListenerPaused("orders-listener", new IllegalStateException("database down"));
		this.listener.onListenerPaused("points/stream", new IllegalStateException("redis down"));
		assertThat(paused("orders-listener")).isOne();
		assertThat(paused("points/stream")).isOne();
		this.listener.onListenerResumed("orders-listener", Duration.ofSeconds(31));
		assertThat(paused("orders-listener")).isZero();
		assertThat(paused("points/stream")).isOne();
		this.listener.onListenerPaused("orders-listener", new IllegalStateException("database down again"));
		assertThat(this.registry.get(IdempotencyMeters.LISTENER_PAUSES)
			.tag(IdempotencyMeters.LISTENER_TAG, "orders-listener")
			.counter()
			.count()).isEqualTo(2);
	}

	private double paused(String listener) {
		return this.registry.get(IdempotencyMeters.LISTENER_PAUSED)
			.tag(IdempotencyMeters.LISTENER_TAG, listener)
			.gauge()
			.value();
	}

}
