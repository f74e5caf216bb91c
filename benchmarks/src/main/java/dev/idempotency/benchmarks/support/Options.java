package dev.idempotency.benchmarks.support;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command-line options of an end-to-end harness: {@code --name value} pairs, a bare
 * {@code --flag} meaning {@code "true"}, read with a default.
 */
public final class Options {

	private final Map<String, String> values;

	private Options(Map<String, String> values) {
		this.values = values;
	}

	/** Parses {@code --name value} pairs; a bare {@code --flag} maps to {@code "true"}. */
	public static Options parse(String[] args) {
		Map<String, String> options = new HashMap<>();
		for (int i = 0; i < args.length; i++) {
			if (!args[i].startsWith("--")) {
				throw new IllegalArgumentException("Unexpected argument '" + args[i] + "'");
			}
			String name = args[i].substring(2);
			if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
				options.put(name, args[++i]);
			}
			else {
				options.put(name, "true");
			}
		}
		return new Options(options);
	}

	public String text(String name, String defaultValue) {
		return this.values.getOrDefault(name, defaultValue);
	}

	public int integer(String name, int defaultValue) {
		return Integer.parseInt(text(name, Integer.toString(defaultValue)));
	}

	/** A comma-separated option as a list. */
	public List<String> list(String name, String defaultValue) {
		return list(text(name, defaultValue));
	}

	/** A comma-separated option of whole numbers. */
	public List<Integer> integers(String name, String defaultValue) {
		return list(name, defaultValue).stream().map(Integer::valueOf).toList();
	}

	/** The non-empty, trimmed parts of a comma-separated value. */
	public static List<String> list(String value) {
		return Arrays.stream(value.split(",")).map(String::trim).filter((s) -> !s.isEmpty()).toList();
	}

}
