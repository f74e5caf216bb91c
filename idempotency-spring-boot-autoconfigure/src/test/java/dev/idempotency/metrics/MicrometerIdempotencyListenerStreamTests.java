package dev.idempotency.metrics;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis Stream meters of {@link MicrometerIdempotencyListener}.
 */
class MicrometerIdempotencyListenerStreamTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final MicrometerIdempotencyListener listener = new MicrometerIdempotencyListener(this.registry);

	@Test
	void pendingGaugesFollowTheLatestMeasurementPerStreamAndGroup() {
		this.listener.onStreamPending("orders", "points", 12, Duration.ofSeconds(90));
		this.listener.onStreamPending("orders", "points", 3, Duration.ofSeconds(5));
		this.listener.onStreamPending("orders", "audit", 7, Duration.ZERO);
		assertThat(gauge(IdempotencyMeters.STREAM_PENDING, "points").value()).isEqualTo(3);
		assertThat(gauge(IdempotencyMeters.STREAM_PENDING, "audit").value()).isEqualTo(7);
		TimeGauge idle = this.registry.find(IdempotencyMeters.STREAM_PENDING_OLDEST_IDLE)
			.tags(IdempotencyMeters.STREAM_TAG, "orders", IdempotencyMeters.GROUP_TAG, "points")
			.timeGauge();
		assertThat(idle.value(TimeUnit.SECONDS)).isEqualTo(5);
	}

	@Test
	void subscriptionsGaugeShowsActiveSubscriptions() {
		this.listener.onStreamSubscriptions("orders", "points", 2);
		this.listener.onStreamSubscriptions("orders", "points", 0);
		assertThat(gauge(IdempotencyMeters.STREAM_SUBSCRIPTIONS_ACTIVE, "points").value()).isZero();
	}

	@Test
	void reclaimedTrimmedAndRecreatedGroupsAreCounted() {
		this.listener.onStreamReclaimed("orders", "points", 4);
		this.listener.onStreamReclaimed("orders", "points", 1);
		this.listener.onStreamTrimmed("orders", "points", 2);
		this.listener.onStreamGroupRecreated("orders", "points");
		assertThat(counter(IdempotencyMeters.STREAM_RECLAIMED)).isEqualTo(5);
		assertThat(counter(IdempotencyMeters.STREAM_TRIMMED)).isEqualTo(2);
		assertThat(counter(IdempotencyMeters.STREAM_GROUP_RECREATED)).isEqualTo(1);
	}

	private Gauge gauge(String name, String group) {
		return this.registry.find(name)
			.tags(IdempotencyMeters.STREAM_TAG, "orders", IdempotencyMeters.GROUP_TAG, group)
			.gauge();
	}

	private double counter(String name) {
		return this.registry.get(name)
			.tags(IdempotencyMeters.STREAM_TAG, "orders", IdempotencyMeters.GROUP_TAG, "points")
			.counter()
			.count();
	}

}
