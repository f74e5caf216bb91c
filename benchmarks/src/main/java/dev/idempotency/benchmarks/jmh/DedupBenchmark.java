package dev.idempotency.benchmarks.jmh;

import java.util.concurrent.TimeUnit;

import dev.idempotency.benchmarks.report.VerdictFile;
import dev.idempotency.benchmarks.support.Database;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Messages per second through one dedup variant: every benchmark thread takes the next message of
 * one shared stream (about 10% duplicates) and hands it to the variant. One trial = one fresh set of
 * tables and one run id; at its end the database is checked against the expected balances and ledger
 * and the verdict is appended to the file named by the system property {@code bench.verdicts}
 * (through {@link VerdictFile}; {@link BenchMain} reads it into the report).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class DedupBenchmark {

	@Param({ "plain", "ideal", "starter-jdbc", "starter-jdbc-defaults", "starter-jdbc-dupcount", "camel-jdbc", "si-jdbc", "lettuce-setnx", "camel-redis", "si-redis" })
	public String variant;

	@Param({ "postgresql", "mariadb" })
	public String db;

	private Bench bench;

	private DedupVariant impl;

	@Setup(Level.Trial)
	public void setUp(BenchmarkParams params) {
		this.bench = new Bench(Database.of(this.db), params.getThreads());
		try {
			this.bench.prepare();
			this.impl = Variants.create(this.variant, this.bench);
		}
		catch (RuntimeException | Error ex) {
			writeVerdict(params.getThreads(), "ERROR", "setup failed: " + oneLine(ex));
			this.bench.close();
			throw ex;
		}
	}

	@Benchmark
	public boolean deliver() {
		return this.bench.deliver(this.impl);
	}

	@TearDown(Level.Trial)
	public void tearDown(BenchmarkParams params) {
		try {
			Bench.Verdict verdict = this.bench.verify(this.impl);
			writeVerdict(params.getThreads(), verdict.correct() ? "OK" : "WRONG", verdict.detail());
		}
		catch (RuntimeException ex) {
			writeVerdict(params.getThreads(), "ERROR", "verification failed: " + oneLine(ex));
		}
		finally {
			try {
				this.impl.close();
			}
			finally {
				this.bench.close();
			}
		}
	}

	private void writeVerdict(int threads, String status, String detail) {
		VerdictFile.append(this.variant, this.db, threads, status, detail);
	}

	static String oneLine(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String message = (ex.getMessage() + ((root != ex) ? " <- " + root.getClass().getName() + ": "
				+ root.getMessage() : "")).replaceAll("\\s+", " ");
		return ex.getClass().getSimpleName() + ": " + message.substring(0, Math.min(400, message.length()));
	}

}
