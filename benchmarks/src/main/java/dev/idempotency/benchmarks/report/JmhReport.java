package dev.idempotency.benchmarks.report;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.RedisConnections;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The Markdown report of a JMH run: settings, command and machine, a table of median messages per
 * second with the ratio to the baseline of the same database and thread count and the correctness
 * verdict of each trial, then the verification detail of every row, between the results-block markers.
 */
public final class JmhReport {

	private final Run run;

	private final String baseline;

	private final Function<String, String> label;

	/**
	 * @param run what was run
	 * @param baseline the variant every ratio is computed against
	 * @param label the label of a variant in the table
	 */
	public JmhReport(Run run, String baseline, Function<String, String> label) {
		this.run = run;
		this.baseline = baseline;
		this.label = label;
	}

	public String render(List<MeasuredRow> rows, Map<String, String[]> verdicts) {
		StringBuilder out = new StringBuilder();
		out.append(ResultsBlock.START).append('\n');
		if (this.run.note() != null) {
			out.append("**").append(this.run.note()).append("**\n\n");
		}
		out.append("Run finished ")
			.append(ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME).substring(0, 19))
			.append(", mode `")
			.append(this.run.full() ? "full" : "quick")
			.append("`: per row ")
			.append(this.run.forks())
			.append(" fork(s) in all passes, ")
			.append(this.run.warmups())
			.append(" × ")
			.append(this.run.warmupSeconds())
			.append(" s warm-up, ")
			.append(this.run.rounds())
			.append(" × ")
			.append(this.run.roundSeconds())
			.append(" s measured rounds; msgs/s is the median of the measured rounds.\n\n");
		out.append("Command: `").append(System.getProperty("bench.command", "scripts/bench.sh")).append("`\n\n");
		out.append("Machine: ").append(machine()).append("\n\n");
		out.append("| variant | database | threads | msgs/s (median) | rounds min–max | ratio to 2 | correctness |\n");
		out.append("|---|---|---:|---:|---:|---:|---|\n");
		List<String> details = new ArrayList<>();
		for (int threads : this.run.threadCounts()) {
			for (String db : this.run.databases()) {
				MeasuredRow baselineRow = MeasuredRow.find(rows, this.baseline, db, threads);
				for (String variant : this.run.variants()) {
					MeasuredRow row = MeasuredRow.find(rows, variant, db, threads);
					String[] verdict = verdicts.get(variant + "/" + db + "/" + threads);
					String status = (verdict != null) ? verdict[0] : "NO VERDICT";
					if (verdict != null) {
						details.add("- " + variant + " / " + db + " / " + threads + " thread(s): " + status + " — "
								+ verdict[1]);
					}
					if (row == null || row.scores().isEmpty()) {
						out.append(String.format("| %s | %s | %d | not measured | | | %s |%n", this.label.apply(variant),
								db, threads, status));
						continue;
					}
					double median = row.median();
					String ratio = (baselineRow != null && !baselineRow.scores().isEmpty())
							? String.format("%.2f×", median / baselineRow.median()) : "n/a";
					String shown = "WRONG".equals(status) ? "**WRONG**" : status;
					out.append(String.format("| %s | %s | %d | %,.0f | %,.0f–%,.0f | %s | %s |%n",
							this.label.apply(variant), db, threads, median, row.min(), row.max(), ratio, shown));
				}
			}
		}
		out.append("\nVerification of each row (after the run, against the expected balances and ledger):\n\n");
		details.forEach((line) -> out.append(line).append('\n'));
		out.append(ResultsBlock.END).append('\n');
		return out.toString();
	}

	private String machine() {
		StringBuilder machine = new StringBuilder();
		machine.append(Runtime.getRuntime().availableProcessors()).append(" CPUs (nproc), ");
		machine.append(memory()).append(" RAM, ");
		machine.append(System.getProperty("java.vm.name"))
			.append(' ')
			.append(System.getProperty("java.runtime.version"))
			.append(", ");
		machine.append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"));
		machine.append(", load average at start ")
			.append(String.format("%.2f", this.run.loadAtStart()))
			.append(", at the end ")
			.append(String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
		for (String db : this.run.databases()) {
			machine.append("; ").append(Database.of(db).serverVersion());
		}
		machine.append("; Redis ").append(redisVersion());
		return machine.toString();
	}

	private static String memory() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
				if (line.startsWith("MemTotal:")) {
					long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
					return String.format("%.1f GiB", kb / 1024.0 / 1024.0);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// not Linux
		}
		return "unknown";
	}

	private static String redisVersion() {
		RedisClient client = RedisClient.create(RedisURI.builder()
			.withHost(RedisConnections.host())
			.withPort(RedisConnections.port())
			.build());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return Arrays.stream(connection.sync().info("server").split("\r?\n"))
				.filter((line) -> line.startsWith("redis_version:"))
				.map((line) -> line.substring("redis_version:".length()))
				.findFirst()
				.orElse("unknown");
		}
		catch (RuntimeException ex) {
			return "unreachable";
		}
		finally {
			client.shutdown();
		}
	}

	/**
	 * What was run.
	 * @param full whether the mode was {@code full}
	 * @param forks forks per row over all passes
	 * @param warmups warm-up iterations
	 * @param warmupSeconds seconds per warm-up iteration
	 * @param rounds measured iterations
	 * @param roundSeconds seconds per measured iteration
	 * @param note printed above the table, or {@code null}
	 * @param variants the variants, in table order
	 * @param databases the database ids
	 * @param threadCounts the thread counts
	 * @param loadAtStart the system load average when the run started
	 */
	public record Run(boolean full, int forks, int warmups, int warmupSeconds, int rounds, int roundSeconds,
			String note, List<String> variants, List<String> databases, List<Integer> threadCounts,
			double loadAtStart) {
	}

}
