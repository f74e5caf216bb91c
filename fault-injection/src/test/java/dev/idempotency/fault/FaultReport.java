package dev.idempotency.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A run's Markdown report: a table of results, then the steps. Printed, written to
 * {@code <run directory>/report.md} and copied to {@code target/fault-injection/<latest>}.
 */
final class FaultReport {

	private final StringBuilder out = new StringBuilder();

	FaultReport(String title) {
		this.out.append(String.format("%n## %s%n%n| | |%n|---|---|%n", title));
	}

	FaultReport row(String name, Object value) {
		this.out.append("| ").append(name).append(" | ").append(value).append(" |\n");
		return this;
	}

	FaultReport steps(List<String> steps) {
		this.out.append("\nSteps:\n\n");
		steps.forEach((line) -> this.out.append("- ").append(line).append('\n'));
		return this;
	}

	/** Prints the report and writes it to the run's directory and to {@code latest}. */
	void publish(Path runDirectory, String latest) {
		String report = this.out.toString();
		System.out.println(report);
		try {
			Files.createDirectories(runDirectory);
			Files.writeString(runDirectory.resolve("report.md"), report);
			Files.writeString(Path.of("target", "fault-injection", latest), report);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public String toString() {
		return this.out.toString();
	}

}
