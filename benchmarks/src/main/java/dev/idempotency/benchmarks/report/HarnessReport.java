package dev.idempotency.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Machine;
import dev.idempotency.benchmarks.support.Stats;

/**
 * The parts every end-to-end harness report shares: the run line, the command and machine lines,
 * number formatting, and publishing the report to the console and
 * {@code benchmarks/target/bench-results}.
 */
public final class HarnessReport {

	private HarnessReport() {
	}

	/** {@code Run finished <now> (started <started>)}, to be followed by the harness's own words. */
	public static String finished(Instant started) {
		return "Run finished " + LocalDateTime.now().withNano(0) + " (started "
				+ started.atZone(ZoneOffset.systemDefault()).toLocalDateTime().withNano(0) + ")";
	}

	/**
	 * The command line ({@code bench.command}, else {@code fallback}) and the machine line with the
	 * load averages and the PostgreSQL version, without a line break at the end.
	 */
	public static String commandAndMachine(String fallback, String loadAtStart) {
		return commandAndMachine(fallback, loadAtStart, Database.POSTGRESQL);
	}

	/**
	 * The command line ({@code bench.command}, else {@code fallback}) and the machine line with the
	 * load averages and the version of {@code database}, without a line break at the end.
	 */
	public static String commandAndMachine(String fallback, String loadAtStart, Database database) {
		return "Command: `" + System.getProperty("bench.command", fallback) + "`\n\nMachine: " + Machine.describe()
				+ "; load average at start " + loadAtStart + ", at the end " + Machine.loadAverage() + "; "
				+ database.productName() + ": " + database.serverVersion();
	}

	public static String fmt(double value) {
		if (Double.isNaN(value)) {
			return "—";
		}
		return (value >= 100) ? String.format("%,.0f", value) : String.format("%.2f", value);
	}

	/** {@code min–max} of the values, formatted. */
	public static String range(List<Double> values) {
		return fmt(Stats.min(values)) + "–" + fmt(Stats.max(values));
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
		Path file = dir.resolve(
				prefix + "-" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(LocalDateTime.now()) + ".md");
		Files.writeString(file, report);
		System.out.println("Report: " + file);
	}

}
