package dev.idempotency.redis.stream.metrics;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis Stream meters of {@link MicrometerStreamConsumerListener}.
 */
class MicrometerStreamConsumerListenerTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final MicrometerStreamConsumerListener listener = new MicrometerStreamConsumerListener(this.registry);

	@Test
	void pendingGaugesFollowTheLatestMeasurementPerStreamAndGroup() {
		this.listener.onStreamPending("orders", "points", 12, Duration.ofSeconds(90));
		this.listener.onStreamPending("orders", "points", 3, Duration.ofSeconds(5));
		this.listener.onStreamPending("orders", "audit", 7, Duration.ZERO);
		assertThat(gauge(RedisStreamMeters.STREAM_PENDING, "points").value()).isEqualTo(3);
		assertThat(gauge(RedisStreamMeters.STREAM_PENDING, "audit").value()).isEqualTo(7);
		TimeGauge idle = this.registry.find(RedisStreamMeters.STREAM_PENDING_OLDEST_IDLE)
			.tags(RedisStreamMeters.STREAM_TAG, "orders", RedisStreamMeters.GROUP_TAG, "points")
			.timeGauge();
		assertThat(idle.value(TimeUnit.SECONDS)).isEqualTo(5);
	}

	@Test
	void subscriptionsGaugeShowsActiveSubscriptions() {
		this.listener.onStreamSubscriptions("orders", "points", 2);
		this.listener.onStreamSubscriptions("orders", "points", 0);
		assertThat(gauge(RedisStreamMeters.STREAM_SUBSCRIPTIONS_ACTIVE, "points").value()).isZero();
	}

	@Test
	void reclaimedTrimmedAndRecreatedGroupsAreCounted() {
		this.listener.onStreamReclaimed("orders", "points", 4);
		this.listener.onStreamReclaimed("orders", "points", 1);
		this.listener.onStreamTrimmed("orders", "points", 2);
		this.listener.onStreamGroupRecreated("orders", "points");
		assertThat(counter(RedisStreamMeters.STREAM_RECLAIMED)).isEqualTo(5);
		assertThat(counter(RedisStreamMeters.STREAM_TRIMMED)).isEqualTo(2);
		assertThat(counter(RedisStreamMeters.STREAM_GROUP_RECREATED)).isEqualTo(1);
	}

	@Test
	void noMetersAreRegisteredBeforeTheFirstEvent() {
		assertThat(this.registry.getMeters()).isEmpty();
	}

	@Test
	void deliveryEventsAreLeftToTheEngineMeters() {
		this.listener.onDeadLettered("orders", "orders.dlq", new IllegalStateException("boom"));
		this.listener.onListenerPaused("orders/points", new IllegalStateException("down"));
		assertThat(this.registry.getMeters()).isEmpty();
	}

	private Gauge gauge(String name, String group) {
		return this.registry.find(name)
			.tags(RedisStreamMeters.STREAM_TAG, "orders", RedisStreamMeters.GROUP_TAG, group)
			.gauge();
	}

	private double counter(String name) {
		return this.registry.get(name)
			.tags(RedisStreamMeters.STREAM_TAG, "orders", RedisStreamMeters.GROUP_TAG, "points")
			.counter()
			.count();
	}

}
