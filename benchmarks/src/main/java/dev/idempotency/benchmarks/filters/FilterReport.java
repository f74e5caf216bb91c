package dev.idempotency.benchmarks.filters;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.idempotency.benchmarks.report.HarnessReport;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.Stats;

/**
 * The Markdown parts of the filter suite's report: the results table (msgs/s, ratio to {@code none}
 * of the same workload and consumers, the share of replayed duplicates answered without the
 * database, correctness), the rebuilds, the filters' memory and the verdict on each aim of issue 15.
 */
final class FilterReport {

	static final String BASELINE = "none";

	private FilterReport() {
	}

	/** A measured row with the lane it measured, taken when the row was measured. */
	record Measured(FilterRounds.Lane lane, String variant, InterleavedRounds.Row row) {

		String workload() {
			return this.lane.workload();
		}

		int consumers() {
			return this.row.concurrency();
		}

		double median() {
			return Stats.median(this.row.rates());
		}

		boolean wrong() {
			return !this.row.failures().isEmpty();
		}

		boolean storm() {
			return this.lane.workload().startsWith("storm");
		}

	}

	static List<Measured> measured(List<FilterRounds.Lane> lanes, List<InterleavedRounds.Row> rows) {
		List<Measured> measured = new ArrayList<>();
		for (int i = 0; i < lanes.size(); i++) {
			measured.add(new Measured(lanes.get(i), lanes.get(i).app().label(), rows.get(i)));
		}
		return measured;
	}

	/** The median of {@code none} of the same workload and consumers. */
	static double ratio(List<Measured> all, Measured row) {
		double baseline = all.stream()
			.filter((other) -> other.lane().app().name().equals(BASELINE) && other.workload().equals(row.workload())
					&& other.consumers() == row.consumers())
			.mapToDouble(Measured::median)
			.findFirst()
			.orElse(Double.NaN);
		return row.median() / baseline;
	}

	static String table(List<Measured> all) {
		StringBuilder out = new StringBuilder("| workload | variant | consumers | msgs/s (median) | rounds min–max "
				+ "| ratio to none | replayed duplicates answered without the DB (filter counter) | … that opened "
				+ "no transaction (transaction count) | correctness |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n");
		for (Measured row : all) {
			out.append("| ").append(row.workload()).append(" | ").append(row.variant()).append(" | ")
				.append(row.consumers()).append(" | ").append(HarnessReport.fmt(row.median())).append(" | ")
				.append(HarnessReport.range(row.row().rates())).append(" | ")
				.append(String.format("%.2f×", ratio(all, row))).append(" | ")
				.append(row.storm() ? percent(Stats.median(row.lane().withoutDb())) : "—").append(" | ")
				.append(row.storm() ? percent(Stats.median(row.lane().withoutTransaction())) : "—").append(" | ")
				.append(row.wrong() ? "**WRONG** (" + row.row().failures().size() + " rounds)" : "OK").append(" |\n");
		}
		return out.toString();
	}

	/** The rebuild of each restarted variant's local layers. */
	static String rebuilds(Map<String, Map<String, double[]>> rebuilds) {
		StringBuilder out = new StringBuilder("| variant | layer | keys read from the table | rebuild "
				+ "(`idempotency.filter.rebuild.duration`) | context start to filter ready |\n|---|---|---:|---:|---:|\n");
		rebuilds.forEach((variant, layers) -> layers.forEach((layer, numbers) -> out.append("| ").append(variant)
			.append(" | ").append(layer).append(" | ").append(String.format("%,.0f", numbers[0])).append(" | ")
			.append(String.format("%,.0f ms", numbers[1])).append(" | ").append(String.format("%,.0f ms", numbers[2]))
			.append(" |\n")));
		return out.toString();
	}

	/** The {@code idempotency.filter.memory} gauges after the first phase. */
	static String memory(Map<String, String> memory) {
		StringBuilder out = new StringBuilder("Memory of the local layers (`idempotency.filter.memory`): ");
		List<String> parts = new ArrayList<>();
		memory.forEach((variant, bytes) -> parts.add(variant + ": " + bytes));
		return out.append(parts.isEmpty() ? "no local layer measured" : String.join("; ", parts)).append(".\n")
			.toString();
	}

	/**
	 * The most any filter can speed up the storm, per consumer count: the storm's time without
	 * filters over the time its new keys alone take at the cost of a new key in the normal workload
	 * without filters (whose re-sent tenth is counted as free).
	 */
	static String stormBounds(List<Measured> all, int stormKeys, int normalMessages) {
		List<String> lines = new ArrayList<>();
		for (Measured storm : all) {
			if (!storm.workload().equals("storm") || !storm.lane().app().name().equals(BASELINE)) {
				continue;
			}
			Measured normal = all.stream()
				.filter((row) -> row.workload().equals("normal") && row.lane().app().name().equals(BASELINE)
						&& row.consumers() == storm.consumers())
				.findFirst()
				.orElse(null);
			if (normal == null) {
				continue;
			}
			double stormSeconds = (stormKeys + stormKeys / 10) / storm.median();
			double perNewKey = (normalMessages / normal.median()) / (normalMessages - normalMessages / 10);
			double newKeysSeconds = (stormKeys / 10) * perNewKey;
			lines.add(String.format("c=%d: the storm took %.1f s without filters, its %,d new keys alone %.1f s "
					+ "(%.2f ms each, from the normal workload): at most %.1f× faster however cheap the duplicates",
					storm.consumers(), stormSeconds, stormKeys / 10, newKeysSeconds, perNewKey * 1000,
					stormSeconds / newKeysSeconds));
		}
		return lines.isEmpty() ? "" : "Bound on the storm's speed-up (medians of `none`): " + String.join("; ", lines)
				+ ".\n";
	}

	/** One line per aim of issue 15, with every row's number and whether it meets the aim. */
	static String aims(List<Measured> all) {
		List<String> db = new ArrayList<>();
		List<String> storm = new ArrayList<>();
		List<String> normal = new ArrayList<>();
		for (Measured row : all) {
			if (row.lane().app().name().equals(BASELINE)) {
				continue;
			}
			String who = row.variant() + " c=" + row.consumers()
					+ (row.workload().equals("storm") ? "" : " " + row.workload().replace("storm ", ""));
			double ratio = ratio(all, row);
			if (row.storm()) {
				double share = Stats.median(row.lane().withoutDb());
				db.add(who + " " + percent(share) + verdict(share >= 99));
				storm.add(who + String.format(" %.2f×", ratio) + verdict(ratio >= 5));
			}
			else {
				normal.add(who + String.format(" %.2f×", ratio) + verdict(ratio >= 0.97));
			}
		}
		return "- **≥ 99 % of replayed duplicates answered without a database round trip:** " + String.join("; ", db)
				+ ".\n- **Storm ≥ 5× faster than without filters:** " + String.join("; ", storm)
				+ ".\n- **Normal workload within 3 % of no filters (ratio ≥ 0.97×):** " + String.join("; ", normal)
				+ ".\n";
	}

	private static String verdict(boolean met) {
		return met ? " (met)" : " (**not met**)";
	}

	private static String percent(double value) {
		return Double.isNaN(value) ? "—" : String.format("%.1f %%", value);
	}

}
