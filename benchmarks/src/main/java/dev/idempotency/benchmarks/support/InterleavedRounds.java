package dev.idempotency.benchmarks.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The round loop of the end-to-end harnesses: variants take turns
 * round by round, their order rotating, so that all see the same machine load; the first rounds warm
 * up and are not counted; a round whose verdict is not OK is noted against its variant.
 */
public final class InterleavedRounds {

	private InterleavedRounds() {
	}

	/** One round of one variant: its rate, its duration and its verification verdict. */
	public record Result(double rate, double seconds, String verdict, ThreadCost.@Nullable PerMessage cost) {

		/** A round without a per-message cost. */
		public Result(double rate, double seconds, String verdict) {
			this(rate, seconds, verdict, null);
		}

		/**
		 * A round of {@code messages} in {@code seconds}, its verdict {@code OK (<counts> <cost>)} when
		 * the checks found no problem, else {@code WRONG — <problems> (<counts> <cost>)}.
		 */
		public static Result checked(int messages, double seconds, List<String> problems, String counts,
				ThreadCost.PerMessage cost) {
			String detail = "(" + counts + " " + cost + ")";
			String verdict = problems.isEmpty() ? "OK " + detail
					: "WRONG — " + String.join("; ", problems) + " " + detail;
			return new Result(messages / seconds, seconds, verdict, cost);
		}

	}

	/** The measured rounds of one variant at one concurrency. */
	public record Row(String variant, int concurrency, List<Double> rates, List<String> failures,
			List<ThreadCost.PerMessage> costs) {
	}

	@FunctionalInterface
	public interface Round<V> {

		Result run(V variant, int round) throws Exception;

	}

	/**
	 * Creates a variant of each name at {@code concurrency}, {@linkplain #run runs} their rounds and
	 * closes them all, whatever happens.
	 */
	public static <V extends AutoCloseable> List<Row> measure(List<String> names, Function<String, V> create,
			Function<V, String> name, int concurrency, int warmup, int rounds, Round<V> round, List<String> verdicts)
			throws Exception {
		List<V> variants = new ArrayList<>();
		try {
			for (String each : names) {
				variants.add(create.apply(each));
			}
			return run(variants, name, concurrency, warmup, rounds, round, verdicts);
		}
		finally {
			for (V variant : variants) {
				try {
					variant.close();
				}
				catch (RuntimeException ex) {
					System.err.println("Closing " + name.apply(variant) + " failed: " + ex);
				}
			}
		}
	}

	/**
	 * Runs {@code warmup + rounds} rounds of every variant, prints a line per round and adds the
	 * measured rounds' lines to {@code verdicts}.
	 */
	public static <V> List<Row> run(List<V> variants, Function<V, String> name, int concurrency, int warmup,
			int rounds, Round<V> round, List<String> verdicts) throws Exception {
		Map<V, List<Double>> rates = new LinkedHashMap<>();
		Map<V, List<String>> failures = new LinkedHashMap<>();
		Map<V, List<ThreadCost.PerMessage>> costs = new LinkedHashMap<>();
		variants.forEach((variant) -> {
			rates.put(variant, new ArrayList<>());
			failures.put(variant, new ArrayList<>());
			costs.put(variant, new ArrayList<>());
		});
		for (int r = 0; r < warmup + rounds; r++) {
			for (int i = 0; i < variants.size(); i++) {
				V variant = variants.get((i + r) % variants.size());
				boolean measured = r >= warmup;
				Result result = round.run(variant, r);
				String line = String.format("%s c=%d round %d%s: %,.0f msgs/s in %.2f s, load %s — %s",
						name.apply(variant), concurrency, r, measured ? "" : " (warm-up)", result.rate(), result.seconds(),
						Machine.loadAverage(), result.verdict());
				System.out.println(line);
				if (measured) {
					rates.get(variant).add(result.rate());
					if (result.cost() != null) {
						costs.get(variant).add(result.cost());
					}
					verdicts.add(line);
					if (!result.verdict().startsWith("OK")) {
						failures.get(variant).add(result.verdict());
					}
				}
			}
		}
		List<Row> rows = new ArrayList<>();
		for (V variant : variants) {
			rows.add(new Row(name.apply(variant), concurrency, rates.get(variant), failures.get(variant),
					costs.get(variant)));
		}
		return rows;
	}

}
