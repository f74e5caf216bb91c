package dev.idempotency.benchmarks.report;

import java.util.List;
import java.util.function.Function;

import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.Stats;

/**
 * The Markdown results table of the interleaved-round harnesses: a row per variant and concurrency
 * with its median, range, ratio to its baseline and correctness, then every measured round's line.
 */
public final class RoundsTable {

	private RoundsTable() {
	}

	/**
	 * The Markdown table of the rows, each with its ratio to the median of its baseline row at the
	 * same concurrency, followed by every measured round's line.
	 */
	public static String of(List<InterleavedRounds.Row> rows, String ratioHeader, Function<String, String> baselineOf,
			List<String> verdicts) {
		StringBuilder out = new StringBuilder();
		out.append("| variant | consumers | msgs/s (median) | rounds min–max | ").append(ratioHeader)
			.append(" | correctness |\n|---|---|---|---|---|---|\n");
		for (InterleavedRounds.Row row : rows) {
			String baselineName = baselineOf.apply(row.variant());
			double baseline = rows.stream()
				.filter((other) -> other.variant().equals(baselineName) && other.concurrency() == row.concurrency())
				.mapToDouble((other) -> Stats.median(other.rates()))
				.findFirst()
				.orElse(Double.NaN);
			double median = Stats.median(row.rates());
			out.append("| ").append(row.variant()).append(" | ").append(row.concurrency()).append(" | ")
				.append(HarnessReport.fmt(median)).append(" | ")
				.append(HarnessReport.range(row.rates()))
				.append(" | ").append(String.format("%.2f", median / baseline)).append(" | ")
				.append(row.failures().isEmpty() ? "OK" : "**WRONG** (" + row.failures().size() + " rounds)")
				.append(" |\n");
		}
		out.append("\nRounds:\n\n");
		verdicts.forEach((line) -> out.append("- ").append(line).append('\n'));
		return out.toString();
	}

}
