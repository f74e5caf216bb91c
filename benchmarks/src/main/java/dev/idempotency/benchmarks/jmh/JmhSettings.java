package dev.idempotency.benchmarks.jmh;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.idempotency.benchmarks.support.Options;

/**
 * The settings of a JMH run, read from {@link BenchMain}'s arguments: {@code --name value} or
 * {@code --name=value}, {@code --jfr} the only flag; the mode gives the defaults of the rest.
 */
record JmhSettings(boolean full, int forks, int warmups, int warmupSeconds, int rounds, int roundSeconds,
		List<String> databases, List<Integer> threadCounts, List<String> variants, Path results, int passes,
		boolean jfr, String docs, String note) {

	static JmhSettings parse(String[] args) {
		Map<String, String> options = options(args);
		boolean full = "full".equals(options.getOrDefault("mode", "quick"));
		return new JmhSettings(full, Integer.parseInt(options.getOrDefault("forks", full ? "2" : "1")),
				Integer.parseInt(options.getOrDefault("warmup", full ? "3" : "2")),
				Integer.parseInt(options.getOrDefault("warmup-time", full ? "5" : "2")),
				Integer.parseInt(options.getOrDefault("rounds", full ? "5" : "3")),
				Integer.parseInt(options.getOrDefault("round-time", full ? "5" : "2")),
				Options.list(options.getOrDefault("db", "postgresql,mariadb")),
				Options.list(options.getOrDefault("threads", "1,4")).stream().map(Integer::valueOf).toList(),
				variants(options.getOrDefault("variants", "all")),
				Path.of(options.getOrDefault("results", "benchmarks/target/bench-results")),
				Integer.parseInt(options.getOrDefault("passes", "1")), options.containsKey("jfr"), options.get("docs"),
				options.get("note"));
	}

	/** Expands {@code all}, {@code jdbc} and {@code redis}; the baseline is always first. */
	private static List<String> variants(String spec) {
		List<String> names = new ArrayList<>();
		for (String part : Options.list(spec)) {
			switch (part) {
				case "all" -> {
					names.addAll(Variants.jdbcNames());
					names.addAll(Variants.redisNames());
				}
				case "jdbc" -> names.addAll(Variants.jdbcNames());
				case "redis" -> names.addAll(Variants.redisNames());
				default -> names.add(part);
			}
		}
		if (!names.contains(Variants.BASELINE)) {
			names.add(0, Variants.BASELINE); // every ratio needs the baseline of the same run
		}
		return names.stream().distinct().toList();
	}

	private static Map<String, String> options(String[] args) {
		Map<String, String> options = new LinkedHashMap<>();
		for (int i = 0; i < args.length; i++) {
			String arg = args[i];
			if (!arg.startsWith("--")) {
				throw new IllegalArgumentException("Unexpected argument '" + arg + "'");
			}
			String name = arg.substring(2);
			if (name.contains("=")) {
				options.put(name.substring(0, name.indexOf('=')), name.substring(name.indexOf('=') + 1));
			}
			else if (name.equals("jfr")) {
				options.put(name, "true");
			}
			else {
				options.put(name, Objects.requireNonNull((i + 1 < args.length) ? args[++i] : null,
						"--" + name + " needs a value"));
			}
		}
		return options;
	}

}
