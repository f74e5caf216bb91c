package dev.idempotency.benchmarks.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The round loop and the results table of the end-to-end harnesses ({@link StreamBench},
 * {@link KafkaBench}): variants take turns round by round, their order rotating, so that all see the
 * same machine load; the first rounds warm up and are not counted; a row's msgs/s is the median of
 * its measured rounds, and a round whose verdict is not OK marks the row WRONG.
 */
public final class InterleavedRounds {

	private InterleavedRounds() {
	}

	/** One round of one variant: its rate, its duration and its verification verdict. */
	public record Result(double rate, double seconds, String verdict) {
	}

	/** The measured rounds of one variant at one concurrency. */
	public record Row(String variant, int concurrency, List<Double> rates, List<String> failures) {
	}

	@FunctionalInterface
	public interface Round<V> {

		Result run(V variant, int round) throws Exception;

	}

	/**
	 * Runs {@code warmup + rounds} rounds of every variant, prints a line per round and adds the
	 * measured rounds' lines to {@code verdicts}.
	 */
	public static <V> List<Row> run(List<V> variants, Function<V, String> name, int concurrency, int warmup, int rounds,
			Round<V> round, List<String> verdicts) throws Exception {
		Map<V, List<Double>> rates = new LinkedHashMap<>();
		Map<V, List<String>> failures = new LinkedHashMap<>();
		variants.forEach((variant) -> {
			rates.put(variant, new ArrayList<>());
			failures.put(variant, new ArrayList<>());
		});
		for (int r = 0; r < warmup + rounds; r++) {
			for (int i = 0; i < variants.size(); i++) {
				V variant = variants.get((i + r) % variants.size());
				boolean measured = r >= warmup;
				Result result = round.run(variant, r);
				String line = String.format("%s c=%d round %d%s: %,.0f msgs/s in %.2f s, load %s — %s",
						name.apply(variant), concurrency, r, measured ? "" : " (warm-up)", result.rate(), result.seconds(),
						Harness.loadAverage(), result.verdict());
				System.out.println(line);
				if (measured) {
					rates.get(variant).add(result.rate());
					verdicts.add(line);
					if (!result.verdict().startsWith("OK")) {
						failures.get(variant).add(result.verdict());
					}
				}
			}
		}
		List<Row> rows = new ArrayList<>();
		for (V variant : variants) {
			rows.add(new Row(name.apply(variant), concurrency, rates.get(variant), failures.get(variant)));
		}
		return rows;
	}

	/**
	 * The Markdown table of the rows, each with its ratio to the median of its baseline row at the
	 * same concurrency, followed by every measured round's line.
	 */
	public static String table(List<Row> rows, String ratioHeader, Function<String, String> baselineOf,
			List<String> verdicts) {
		StringBuilder out = new StringBuilder();
		out.append("| variant | consumers | msgs/s (median) | rounds min–max | ").append(ratioHeader)
			.append(" | correctness |\n|---|---|---|---|---|---|\n");
		for (Row row : rows) {
			String baselineName = baselineOf.apply(row.variant());
			double baseline = rows.stream()
				.filter((other) -> other.variant().equals(baselineName) && other.concurrency() == row.concurrency())
				.mapToDouble((other) -> Harness.median(other.rates()))
				.findFirst()
				.orElse(Double.NaN);
			double median = Harness.median(row.rates());
			out.append("| ").append(row.variant()).append(" | ").append(row.concurrency()).append(" | ")
				.append(Harness.fmt(median)).append(" | ")
				.append(Harness.fmt(row.rates().stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN)))
				.append("–")
				.append(Harness.fmt(row.rates().stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN)))
				.append(" | ").append(String.format("%.2f", median / baseline)).append(" | ")
				.append(row.failures().isEmpty() ? "OK" : "**WRONG** (" + row.failures().size() + " rounds)")
				.append(" |\n");
		}
		out.append("\nRounds:\n\n");
		verdicts.forEach((line) -> out.append("- ").append(line).append('\n'));
		return out.toString();
	}

}
