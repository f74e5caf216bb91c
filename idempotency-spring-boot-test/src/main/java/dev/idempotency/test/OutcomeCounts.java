package dev.idempotency.test;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Counts read from the engine's meters since the last {@link #reset()}: the meters keep counting over
 * the whole context, which tests share, so each count is the meter's value less the value it had at
 * the reset. Meters are never removed: the engine keeps recording into the ones it registered.
 */
final class OutcomeCounts {

	private final MeterRegistry registry;

	private final Map<Meter.Id, Double> baseline = new ConcurrentHashMap<>();

	OutcomeCounts(MeterRegistry registry) {
		this.registry = registry;
	}

	void reset() {
		this.baseline.clear();
		for (Meter meter : this.registry.getMeters()) {
			this.baseline.put(meter.getId(), total(meter));
		}
	}

	long invocations(IdempotencyOutcome outcome, @Nullable String namespace) {
		double sum = 0;
		for (Timer timer : this.registry.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome.tag())
			.timers()) {
			if (namespace == null || namespace.equals(timer.getId().getTag(IdempotencyMeters.NAMESPACE_TAG))) {
				sum += sinceReset(timer);
			}
		}
		return Math.round(sum);
	}

	long counter(String name) {
		double sum = 0;
		for (Counter counter : this.registry.find(name).counters()) {
			sum += sinceReset(counter);
		}
		return Math.round(sum);
	}

	/** Every outcome's count by namespace, for failure messages. */
	Map<String, Map<String, Long>> byNamespace() {
		Map<String, Map<String, Long>> counts = new TreeMap<>();
		for (Timer timer : this.registry.find(IdempotencyMeters.INVOCATIONS).timers()) {
			long count = Math.round(sinceReset(timer));
			if (count != 0) {
				counts.computeIfAbsent(String.valueOf(timer.getId().getTag(IdempotencyMeters.NAMESPACE_TAG)),
						(namespace) -> new TreeMap<>())
					.merge(String.valueOf(timer.getId().getTag(IdempotencyMeters.OUTCOME_TAG)), count, Long::sum);
			}
		}
		return counts;
	}

	private double sinceReset(Meter meter) {
		return total(meter) - this.baseline.getOrDefault(meter.getId(), 0.0);
	}

	private static double total(Meter meter) {
		if (meter instanceof Timer timer) {
			return timer.count();
		}
		if (meter instanceof Counter counter) {
			return counter.count();
		}
		return 0;
	}

}
