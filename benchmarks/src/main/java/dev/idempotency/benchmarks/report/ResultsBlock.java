package dev.idempotency.benchmarks.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The results block of a Markdown page, between its two markers: replaced by a new report. */
public final class ResultsBlock {

	public static final String START = "<!-- bench-results:start -->";

	public static final String END = "<!-- bench-results:end -->";

	private ResultsBlock() {
	}

	/** Replaces the block of {@code file} with {@code block}, or appends it where there is none. */
	public static void replace(Path file, String block) throws IOException {
		String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
		int start = text.indexOf(START);
		int end = text.indexOf(END);
		String updated;
		if (start >= 0 && end > start) {
			updated = text.substring(0, start) + block.strip() + text.substring(end + END.length());
		}
		else {
			updated = text + "\n" + block;
		}
		Files.writeString(file, updated, StandardCharsets.UTF_8);
	}

}
