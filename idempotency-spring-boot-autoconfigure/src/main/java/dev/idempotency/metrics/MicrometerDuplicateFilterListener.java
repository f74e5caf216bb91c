package dev.idempotency.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.DuplicateFilterListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;

/**
 * Records what the duplicate filters answer ({@value IdempotencyMeters#FILTER_ANSWERS}), their false
 * positives, their rebuilds and, with {@link #bindMemory}, the memory they hold.
 *
 * @since 0.2.0
 */
public class MicrometerDuplicateFilterListener implements DuplicateFilterListener {

	private final MeterRegistry registry;

	private final Map<String, Counter> answers = new ConcurrentHashMap<>();

	private final Map<String, Counter> falsePositives = new ConcurrentHashMap<>();

	private final Map<String, AtomicLong> rebuildKeys = new ConcurrentHashMap<>();

	private final Map<String, AtomicLong> rebuildNanos = new ConcurrentHashMap<>();

	/**
	 * Creates the listener.
	 * @param registry where the meters go
	 */
	public MicrometerDuplicateFilterListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onFilterAnswer(String filter, DuplicateFilter.Answer answer) {
		this.answers.computeIfAbsent(filter + '\u0000' + answer, (id) -> Counter.builder(IdempotencyMeters.FILTER_ANSWERS)
			.description("Answers of a duplicate filter")
			.tag(IdempotencyMeters.FILTER_TAG, filter)
			.tag(IdempotencyMeters.ANSWER_TAG, answer.name().toLowerCase(Locale.ROOT))
			.register(this.registry)).increment();
	}

	@Override
	public void onFilterFalsePositive(String filter) {
		this.falsePositives.computeIfAbsent(filter, (id) -> Counter.builder(IdempotencyMeters.FILTER_FALSE_POSITIVES)
			.description("A filter's 'maybe' answers for keys the store then claimed as new")
			.tag(IdempotencyMeters.FILTER_TAG, filter)
			.register(this.registry)).increment();
	}

	@Override
	public void onFilterRebuilt(String filter, long keys, Duration took) {
		this.rebuildKeys.computeIfAbsent(filter, (id) -> {
			AtomicLong value = new AtomicLong();
			Gauge.builder(IdempotencyMeters.FILTER_REBUILD_KEYS, value, AtomicLong::get)
				.description("Keys the last rebuild of a local filter read from the store")
				.tag(IdempotencyMeters.FILTER_TAG, filter)
				.register(this.registry);
			return value;
		}).set(keys);
		this.rebuildNanos.computeIfAbsent(filter, (id) -> {
			AtomicLong value = new AtomicLong();
			TimeGauge.builder(IdempotencyMeters.FILTER_REBUILD_DURATION, value, TimeUnit.NANOSECONDS, AtomicLong::get)
				.description("How long the last rebuild of a local filter took")
				.tag(IdempotencyMeters.FILTER_TAG, filter)
				.register(this.registry);
			return value;
		}).set(took.toNanos());
	}

	/**
	 * Registers the memory gauge of a filter that lives in this process.
	 * @param filter the filter; one whose {@link DuplicateFilter#memoryBytes()} is negative is skipped
	 */
	public void bindMemory(DuplicateFilter filter) {
		if (filter.memoryBytes() < 0) {
			return;
		}
		Gauge.builder(IdempotencyMeters.FILTER_MEMORY, filter, DuplicateFilter::memoryBytes)
			.description("Bytes a local duplicate filter holds")
			.baseUnit("bytes")
			.tag(IdempotencyMeters.FILTER_TAG, filter.name())
			.register(this.registry);
	}

}
