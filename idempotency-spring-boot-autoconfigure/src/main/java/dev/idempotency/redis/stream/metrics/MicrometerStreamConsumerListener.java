package dev.idempotency.redis.stream.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.redis.stream.StreamConsumerListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;

/**
 * Records what the Redis Stream adapter tells of its consumer groups as Micrometer meters, tagged
 * {@value RedisStreamMeters#STREAM_TAG} and {@value RedisStreamMeters#GROUP_TAG}:
 * <ul>
 * <li>{@value RedisStreamMeters#STREAM_PENDING}, {@value RedisStreamMeters#STREAM_PENDING_OLDEST_IDLE} and
 * {@value RedisStreamMeters#STREAM_SUBSCRIPTIONS_ACTIVE} (gauges, registered at their first
 * measurement);</li>
 * <li>{@value RedisStreamMeters#STREAM_RECLAIMED}, {@value RedisStreamMeters#STREAM_TRIMMED} and
 * {@value RedisStreamMeters#STREAM_GROUP_RECREATED} (counters).</li>
 * </ul>
 * Dead letters and fail-closed pauses of stream listeners are recorded by the engine's
 * {@code MicrometerIdempotencyListener}, not here.
 *
 * @since 0.2.0
 */
public class MicrometerStreamConsumerListener implements StreamConsumerListener {

	private final MeterRegistry registry;

	private final MeterProvider<Counter> streamReclaimed;

	private final MeterProvider<Counter> streamTrimmed;

	private final MeterProvider<Counter> streamGroupRecreated;

	/** Values behind the gauges, by meter name, stream and group; gauges hold them weakly. */
	private final Map<String, AtomicLong> gaugeValues = new ConcurrentHashMap<>();

	/**
	 * Creates the listener.
	 * @param registry where the meters go
	 */
	public MicrometerStreamConsumerListener(MeterRegistry registry) {
		this.registry = registry;
		this.streamReclaimed = Counter.builder(RedisStreamMeters.STREAM_RECLAIMED)
			.description("Pending stream entries claimed from idle consumers")
			.withRegistry(registry);
		this.streamTrimmed = Counter.builder(RedisStreamMeters.STREAM_TRIMMED)
			.description("Pending stream entries acknowledged because they were trimmed from the stream")
			.withRegistry(registry);
		this.streamGroupRecreated = Counter.builder(RedisStreamMeters.STREAM_GROUP_RECREATED)
			.description("Consumer groups recreated after they disappeared")
			.withRegistry(registry);
	}

	@Override
	public void onStreamPending(String stream, String group, long pending, Duration oldestIdle) {
		gauge(RedisStreamMeters.STREAM_PENDING, stream, group, "Pending entries of a stream consumer group")
			.set(pending);
		String key = RedisStreamMeters.STREAM_PENDING_OLDEST_IDLE + "|" + stream + "|" + group;
		this.gaugeValues.computeIfAbsent(key, (name) -> {
			AtomicLong value = new AtomicLong();
			TimeGauge.builder(RedisStreamMeters.STREAM_PENDING_OLDEST_IDLE, value, TimeUnit.MILLISECONDS,
					AtomicLong::get)
				.description("Idle time of the longest-waiting of the oldest pending entries")
				.tags(streamTags(stream, group))
				.register(this.registry);
			return value;
		}).set(oldestIdle.toMillis());
	}

	@Override
	public void onStreamSubscriptions(String stream, String group, int active) {
		gauge(RedisStreamMeters.STREAM_SUBSCRIPTIONS_ACTIVE, stream, group,
				"Subscriptions of this application reading the stream without error")
			.set(active);
	}

	@Override
	public void onStreamReclaimed(String stream, String group, int count) {
		this.streamReclaimed.withTags(streamTags(stream, group)).increment(count);
	}

	@Override
	public void onStreamTrimmed(String stream, String group, int count) {
		this.streamTrimmed.withTags(streamTags(stream, group)).increment(count);
	}

	@Override
	public void onStreamGroupRecreated(String stream, String group) {
		this.streamGroupRecreated.withTags(streamTags(stream, group)).increment();
	}

	private AtomicLong gauge(String name, String stream, String group, String description) {
		return this.gaugeValues.computeIfAbsent(name + "|" + stream + "|" + group, (key) -> {
			AtomicLong value = new AtomicLong();
			Gauge.builder(name, value, AtomicLong::get)
				.description(description)
				.tags(streamTags(stream, group))
				.register(this.registry);
			return value;
		});
	}

	private static Tags streamTags(String stream, String group) {
		return Tags.of(RedisStreamMeters.STREAM_TAG, stream, RedisStreamMeters.GROUP_TAG, group);
	}

}
