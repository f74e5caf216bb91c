package dev.idempotency.benchmarks.support;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Medians and nearest-rank percentiles of measured values. */
public final class Stats {

	private Stats() {
	}

	public static double median(List<Double> values) {
		return percentile(values, 50);
	}

	/** Nearest-rank percentile of {@code values} (unsorted), {@code NaN} when empty. */
	public static double percentile(List<Double> values, double percent) {
		if (values.isEmpty()) {
			return Double.NaN;
		}
		List<Double> sorted = new ArrayList<>(values);
		sorted.sort(null);
		if (percent == 50 && sorted.size() % 2 == 0) {
			return (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
		}
		int rank = (int) Math.ceil(percent / 100.0 * sorted.size());
		return sorted.get(Math.min(sorted.size() - 1, Math.max(0, rank - 1)));
	}

	/** Nearest-rank percentile of {@code values} (sorted in place), in the unit given. */
	public static double percentile(long[] values, int count, double percent) {
		if (count == 0) {
			return Double.NaN;
		}
		Arrays.sort(values, 0, count);
		int rank = (int) Math.ceil(percent / 100.0 * count);
		return values[Math.min(count - 1, Math.max(0, rank - 1))];
	}

	public static double min(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
	}

	public static double max(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
	}

}
