package dev.idempotency.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What each duplicate filter layer answered during the run (the {@code filters} profile), read from
 * the starter's meters.
 *
 * @param answers per layer, its answers and how many of each
 * @param falsePositives per layer, its "maybe" answers that the store claimed as new keys
 */
public record FilterCounts(Map<String, Map<String, Long>> answers, Map<String, Long> falsePositives) {

	/**
	 * Reads the filter meters.
	 * @param meters the application's registry
	 * @return the counts, empty when the filters are off
	 */
	public static FilterCounts from(MeterRegistry meters) {
		Map<String, Map<String, Long>> answers = new TreeMap<>();
		for (Counter counter : meters.find(IdempotencyMeters.FILTER_ANSWERS).counters()) {
			answers.computeIfAbsent(counter.getId().getTag(IdempotencyMeters.FILTER_TAG), (filter) -> new TreeMap<>())
				.merge(counter.getId().getTag(IdempotencyMeters.ANSWER_TAG), (long) counter.count(), Long::sum);
		}
		Map<String, Long> falsePositives = new TreeMap<>();
		for (Counter counter : meters.find(IdempotencyMeters.FILTER_FALSE_POSITIVES).counters()) {
			falsePositives.merge(counter.getId().getTag(IdempotencyMeters.FILTER_TAG), (long) counter.count(),
					Long::sum);
		}
		return new FilterCounts(answers, falsePositives);
	}

	/**
	 * How many times a layer gave an answer.
	 * @param filter the layer
	 * @param answer the answer in lower case ({@code completed}, {@code absent}, {@code maybe}, {@code unknown})
	 * @return the count, 0 if never
	 */
	public long count(String filter, String answer) {
		return this.answers.getOrDefault(filter, Map.of()).getOrDefault(answer.toLowerCase(Locale.ROOT), 0L);
	}

	@Override
	public String toString() {
		if (this.answers.isEmpty()) {
			return "";
		}
		List<String> lines = new ArrayList<>();
		lines.add("Duplicate filters (both flows)");
		this.answers.forEach((filter, counts) -> lines.add("  %-14s %s; false positives %d".formatted(filter, counts,
				this.falsePositives.getOrDefault(filter, 0L))));
		return String.join(System.lineSeparator(), lines);
	}

}
