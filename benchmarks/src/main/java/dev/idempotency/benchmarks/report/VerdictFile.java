package dev.idempotency.benchmarks.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The verdicts file of a JMH run (tab-separated: variant, database, threads, status, detail): each
 * trial's fork appends its line, the launcher reads them all back into the report.
 */
public final class VerdictFile {

	private VerdictFile() {
	}

	/**
	 * Prints the verdict of one trial and appends it to the file named by the system property
	 * {@code bench.verdicts}, if set.
	 */
	public static void append(String variant, String db, int threads, String status, String detail) {
		String file = System.getProperty("bench.verdicts");
		String line = String.join("\t", variant, db, Integer.toString(threads), status, detail) + "\n";
		System.out.print("[verdict] " + line);
		if (file == null) {
			return;
		}
		try {
			Files.writeString(Path.of(file), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not write verdict to " + file, ex);
		}
	}

	/**
	 * The verdicts by {@code variant/db/threads}, each {@code [status, detail]}; with several forks,
	 * any non-OK verdict wins.
	 */
	public static Map<String, String[]> read(Path file) throws IOException {
		Map<String, String[]> verdicts = new LinkedHashMap<>();
		if (!Files.exists(file)) {
			return verdicts;
		}
		for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
			String[] fields = line.split("\t", 5);
			if (fields.length == 5) {
				String key = fields[0] + "/" + fields[1] + "/" + fields[2];
				String[] previous = verdicts.get(key);
				// Several forks: any non-OK verdict wins.
				if (previous == null || "OK".equals(previous[0])) {
					verdicts.put(key, new String[] { fields[3], fields[4] });
				}
			}
		}
		return verdicts;
	}

}
