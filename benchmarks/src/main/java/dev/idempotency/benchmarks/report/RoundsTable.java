package dev.idempotency.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.Stats;
import dev.idempotency.benchmarks.support.ThreadCost;

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
		return of(rows, Map.of(ratioHeader, baselineOf), verdicts);
	}

	/**
	 * The same table with one ratio column per entry of {@code ratios} (header to baseline of a
	 * variant), in the map's order.
	 */
	public static String of(List<InterleavedRounds.Row> rows, Map<String, Function<String, String>> ratios,
			List<String> verdicts) {
		StringBuilder out = new StringBuilder();
		boolean costs = rows.stream().anyMatch((row) -> !row.costs().isEmpty());
		out.append("| variant | consumers | msgs/s (median) | rounds min–max | ");
		ratios.keySet().forEach((header) -> out.append(header).append(" | "));
		if (costs) {
			out.append("consumer-thread CPU µs/msg (median) | allocated B/msg (median) | ");
		}
		out.append("correctness |\n|---|---|---|---|").append("---|".repeat(ratios.size() + (costs ? 2 : 0)))
			.append("---|\n");
		for (InterleavedRounds.Row row : rows) {
			double median = Stats.median(row.rates());
			out.append("| ").append(row.variant()).append(" | ").append(row.concurrency()).append(" | ")
				.append(HarnessReport.fmt(median)).append(" | ")
				.append(HarnessReport.range(row.rates()))
				.append(" | ");
			ratios.values().forEach((baselineOf) -> out
				.append(String.format("%.2f", median / baselineMedian(rows, baselineOf.apply(row.variant()), row.concurrency())))
				.append(" | "));
			if (costs && row.costs().isEmpty()) {
				out.append("— | — | ");
			}
			else if (costs) {
				out.append(String.format("%.1f", Stats.median(row.costs().stream().map(ThreadCost.PerMessage::cpuMicros).toList())))
					.append(" | ")
					.append(String.format("%,.0f", Stats.median(row.costs().stream()
						.map((cost) -> (double) cost.allocatedBytes()).toList())))
					.append(" | ");
			}
			out.append(row.failures().isEmpty() ? "OK" : "**WRONG** (" + row.failures().size() + " rounds)")
				.append(" |\n");
		}
		out.append("\nRounds:\n\n");
		verdicts.forEach((line) -> out.append("- ").append(line).append('\n'));
		return out.toString();
	}

	/**
	 * The Markdown table of each variant's ratio to {@code baseline} round by round (the two measured
	 * one after the other), at each concurrency: the median of those ratios, their quartiles and how
	 * many rounds.
	 */
	public static String pairs(List<InterleavedRounds.Row> rows, String baseline, String concurrencyHeader) {
		StringBuilder out = new StringBuilder("| pair | " + concurrencyHeader
				+ " | median of per-round ratios | quartiles | rounds |\n|---|---:|---:|---:|---:|\n");
		for (InterleavedRounds.Row row : rows) {
			if (row.variant().equals(baseline)) {
				continue;
			}
			rows.stream()
				.filter((other) -> other.variant().equals(baseline) && other.concurrency() == row.concurrency())
				.findFirst()
				.ifPresent((base) -> {
					List<Double> ratios = new ArrayList<>();
					for (int i = 0; i < Math.min(row.rates().size(), base.rates().size()); i++) {
						ratios.add(row.rates().get(i) / base.rates().get(i));
					}
					out.append(String.format("| %s / %s | %d | **%.3f** | %.3f–%.3f | %d |%n", row.variant(), baseline,
							row.concurrency(), Stats.median(ratios), Stats.percentile(ratios, 25),
							Stats.percentile(ratios, 75), ratios.size()));
				});
		}
		return out.toString();
	}

	private static double baselineMedian(List<InterleavedRounds.Row> rows, String baseline, int concurrency) {
		return rows.stream()
			.filter((other) -> other.variant().equals(baseline) && other.concurrency() == concurrency)
			.mapToDouble((other) -> Stats.median(other.rates()))
			.findFirst()
			.orElse(Double.NaN);
	}

}
