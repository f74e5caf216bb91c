package dev.idempotency.benchmarks.report;

import java.util.List;

import dev.idempotency.benchmarks.support.Stats;

/**
 * One row of the JMH table: the measured rounds of one variant, database and thread count.
 * @param variant the variant's name
 * @param db the database's id
 * @param threads the benchmark threads
 * @param scores msgs/s of every measured round, over all forks and passes
 */
public record MeasuredRow(String variant, String db, int threads, List<Double> scores) {

	/** The row of that variant, database and thread count, or {@code null}. */
	public static MeasuredRow find(List<MeasuredRow> rows, String variant, String db, int threads) {
		return rows.stream()
			.filter((row) -> row.variant.equals(variant) && row.db.equals(db) && row.threads == threads)
			.findFirst()
			.orElse(null);
	}

	public double median() {
		List<Double> sorted = this.scores.stream().sorted().toList();
		int n = sorted.size();
		return (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
	}

	public double min() {
		return Stats.min(this.scores);
	}

	public double max() {
		return Stats.max(this.scores);
	}

}
