package dev.idempotency.benchmarks.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Small helpers shared by the end-to-end harnesses ({@link StreamBench}, {@link OutboxBench}): option
 * parsing, medians and percentiles, the load average, the machine line of a report.
 */

import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

public final class Harness {

	private Harness() {
	}

	/** {@code --name value} pairs; a bare {@code --flag} maps to {@code "true"}. */
	public static Map<String, String> options(String[] args) {
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
		return options;
	}

	public static List<String> list(String value) {
		return Arrays.stream(value.split(",")).map(String::trim).filter((s) -> !s.isEmpty()).toList();
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

	public static String loadAverage() {
		try {
			String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return parts[0] + " " + parts[1] + " " + parts[2];
		}
		catch (IOException | RuntimeException ex) {
			return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
		}
	}

	public static String machine() {
		return Runtime.getRuntime().availableProcessors() + " CPUs, "
				+ String.format("%.1f GiB max heap", Runtime.getRuntime().maxMemory() / 1024.0 / 1024 / 1024) + ", "
				+ System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version");
	}

	public static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	public static void sleep(long millis, int nanos) {
		try {
			Thread.sleep(millis, nanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	public static String fmt(double value) {
		if (Double.isNaN(value)) {
			return "—";
		}
		return (value >= 100) ? String.format("%,.0f", value) : String.format("%.2f", value);
	}

	/**
	 * Runs one of the starter's schema scripts with its table renamed, so that a harness gets its
	 * own copy of the shipped table (same columns, keys and indexes) instead of writing it again.
	 */
	public static void createFromShippedSchema(JdbcTemplate jdbc, String script, String table, String renamedTo) {
		try {
			String sql = new ClassPathResource(script).getContentAsString(StandardCharsets.UTF_8)
				.replace(table, renamedTo);
			new ResourceDatabasePopulator(new ByteArrayResource(sql.getBytes(StandardCharsets.UTF_8)))
				.execute(jdbc.getDataSource());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Prints a harness's Markdown report and writes it to
	 * {@code benchmarks/target/bench-results/<prefix>-<timestamp>.md}.
	 */
	public static void publish(String prefix, String report) throws IOException {
		System.out.println();
		System.out.println(report);
		Path dir = Path.of("benchmarks/target/bench-results");
		Files.createDirectories(dir);
		Path file = dir.resolve(prefix + "-"
				+ DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(LocalDateTime.now())
				+ ".md");
		Files.writeString(file, report);
		System.out.println("Report: " + file);
	}

}
