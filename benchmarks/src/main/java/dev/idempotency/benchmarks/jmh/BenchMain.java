package dev.idempotency.benchmarks.jmh;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.benchmarks.report.JmhReport;
import dev.idempotency.benchmarks.report.MeasuredRow;
import dev.idempotency.benchmarks.report.ResultsBlock;
import dev.idempotency.benchmarks.report.VerdictFile;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.JavaFlightRecorderProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link DedupBenchmark} for every thread count, database and variant asked for, then writes a
 * {@link JmhReport}: a table of median messages per second, the ratio to the hand-written ideal
 * (variant 2) of the same database and thread count measured in the same run, and the correctness
 * verdict of each trial.
 * <p>
 * Arguments (all optional, see {@link JmhSettings}): {@code --mode quick|full},
 * {@code --db postgresql,mariadb}, {@code --threads 1,4}, {@code --variants all|jdbc|redis|name,...},
 * {@code --forks N}, {@code --warmup N}, {@code --warmup-time SECONDS}, {@code --rounds N},
 * {@code --round-time SECONDS}, {@code --passes N} (run the whole matrix N times, one after the other,
 * so that every variant meets the machine's background load at several moments; the median is over
 * the rounds of all passes), {@code --jfr} (one JFR recording per fork under the results directory),
 * {@code --results DIR}, {@code --docs FILE} (replace the results block of that Markdown file),
 * {@code --note TEXT} (printed above the table).
 */
public final class BenchMain {

	private static final List<String> FORWARDED_PROPERTIES = List.of("bench.postgresql.url", "bench.mariadb.url",
			"bench.redis.host", "bench.redis.port", "bench.redis.database");

	private BenchMain() {
	}

	public static void main(String[] args) throws RunnerException, IOException {
		double loadAtStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
		JmhSettings settings = JmhSettings.parse(args);
		Path results = settings.results();
		Files.createDirectories(results);
		String stamp = ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
		Path verdicts = results.resolve("verdicts-" + stamp + ".tsv");
		List<MeasuredRow> rows = new ArrayList<>();
		for (int pass = 1; pass <= settings.passes(); pass++) {
			for (int threads : settings.threadCounts()) {
				ChainedOptionsBuilder jmh = options(settings, threads, verdicts,
						results.resolve("jmh-" + stamp + "-p" + pass + "-t" + threads + ".json"));
				if (settings.jfr()) {
					jmh.addProfiler(JavaFlightRecorderProfiler.class,
							"dir=" + results.resolve("jfr-" + stamp).toAbsolutePath());
				}
				for (RunResult run : new Runner(jmh.build()).run()) {
					collect(rows, run);
				}
			}
		}
		JmhReport.Run run = new JmhReport.Run(settings.full(), settings.passes() * settings.forks(), settings.warmups(),
				settings.warmupSeconds(), settings.rounds(), settings.roundSeconds(), settings.note(),
				settings.variants(), settings.databases(), settings.threadCounts(), loadAtStart);
		String report = new JmhReport(run, Variants.BASELINE, Variants::label).render(rows, VerdictFile.read(verdicts));
		Path reportFile = results.resolve("report-" + stamp + ".md");
		Files.writeString(reportFile, report, StandardCharsets.UTF_8);
		System.out.println();
		System.out.println(report);
		System.out.println("Report written to " + reportFile);
		if (settings.docs() != null) {
			ResultsBlock.replace(Path.of(settings.docs()), report);
			System.out.println("Results block of " + settings.docs() + " replaced");
		}
	}

	private static ChainedOptionsBuilder options(JmhSettings settings, int threads, Path verdicts, Path json) {
		ChainedOptionsBuilder jmh = new OptionsBuilder().include(DedupBenchmark.class.getName() + ".deliver")
			.param("variant", settings.variants().toArray(String[]::new))
			.param("db", settings.databases().toArray(String[]::new))
			.threads(threads)
			.forks(settings.forks())
			.warmupIterations(settings.warmups())
			.warmupTime(TimeValue.seconds(settings.warmupSeconds()))
			.measurementIterations(settings.rounds())
			.measurementTime(TimeValue.seconds(settings.roundSeconds()))
			.shouldFailOnError(false)
			.result(json.toString())
			.resultFormat(ResultFormatType.JSON);
		// One call: each jvmArgsAppend replaces the list of the previous one.
		List<String> jvmArgs = new ArrayList<>(List.of("-Xms1g", "-Xmx1g",
				"-Dbench.verdicts=" + verdicts.toAbsolutePath(), "-Dlogging.level.root=WARN"));
		for (String key : FORWARDED_PROPERTIES) {
			if (System.getProperty(key) != null) {
				jvmArgs.add("-D" + key + "=" + System.getProperty(key));
			}
		}
		return jmh.jvmArgsAppend(jvmArgs.toArray(String[]::new));
	}

	/** Adds the measured rounds of {@code run} to the row of its variant, database and thread count. */
	private static void collect(List<MeasuredRow> rows, RunResult run) {
		BenchmarkParams params = run.getParams();
		List<Double> scores = new ArrayList<>();
		for (BenchmarkResult fork : run.getBenchmarkResults()) {
			for (IterationResult round : fork.getIterationResults()) {
				scores.add(round.getPrimaryResult().getScore());
			}
		}
		MeasuredRow row = MeasuredRow.find(rows, params.getParam("variant"), params.getParam("db"), params.getThreads());
		if (row == null) {
			rows.add(new MeasuredRow(params.getParam("variant"), params.getParam("db"), params.getThreads(), scores));
		}
		else {
			row.scores().addAll(scores);
		}
	}

}
