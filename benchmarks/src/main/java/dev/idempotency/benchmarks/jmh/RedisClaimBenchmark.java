package dev.idempotency.benchmarks.jmh;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.benchmarks.support.RedisConnections;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
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
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;

/**
 * Claims per second of the starter's Redis store against raw Lettuce, with no database in the way:
 * each operation claims the next key and, if it got it, completes it; every tenth operation re-claims
 * the key of five operations earlier (a duplicate). Raw Lettuce is {@code SET key PROCESSING NX PX}
 * then {@code SET key DONE XX PX} on one shared connection; {@code lettuce-cas} is the same claim with
 * the starter's compare-and-set completion script ({@code complete.lua}, by {@code EVALSHA}) instead
 * of the blind {@code SET XX}, so the gap between the two raw variants is the price of never
 * overwriting a claim that another delivery took over; the starter is
 * {@link RedisIdempotencyStore#claim} (a Lua script) then {@link RedisIdempotencyStore#complete}
 * (a compare-and-set script) on an auto-configured-style {@code LettuceConnectionFactory}. At the end
 * of each trial, the number of granted claims must equal the number of distinct keys: a variant that
 * grants a key twice (or loses one) is reported as WRONG.
 *
 * <pre>
 * CP="benchmarks/target/classes:$(cat benchmarks/target/benchmark.classpath)"
 * java -cp "$CP" dev.idempotency.benchmarks.RedisClaimBenchmark [rounds] [round seconds] [passes]
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RedisClaimBenchmark {

	private static final SetArgs CLAIM = SetArgs.Builder.nx().px(Duration.ofSeconds(30));

	private static final long DONE_MILLIS = Duration.ofMinutes(10).toMillis();

	private static final SetArgs DONE = SetArgs.Builder.xx().px(DONE_MILLIS);

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	@Param({ "lettuce-setnx", "lettuce-cas", "starter-redis" })
	public String variant;

	private RedisConnections redis;

	private RedisCommands<String, String> lettuce;

	private RedisIdempotencyStore store;

	private String completeSha;

	private String prefix;

	private final AtomicLong operations = new AtomicLong();

	private final AtomicLong granted = new AtomicLong();

	@Setup(Level.Trial)
	public void setUp() {
		String runId = UUID.randomUUID().toString().substring(0, 8);
		this.redis = new RedisConnections(runId);
		this.prefix = "bench:claim:" + runId + ":";
		if (this.variant.startsWith("lettuce")) {
			this.lettuce = this.redis.lettuce().sync();
		}
		if (this.variant.equals("lettuce-cas")) {
			this.completeSha = this.lettuce.scriptLoad(completeScript());
		}
		else {
			this.store = new RedisIdempotencyStore(this.redis.template(), this.prefix);
		}
	}

	@Benchmark
	public boolean claimAndComplete() {
		long n = this.operations.incrementAndGet();
		String key = Long.toString((n % 10 == 0) ? n - 5 : n);
		boolean claimed = (this.lettuce != null) ? lettuce(key) : starter(key);
		if (claimed) {
			this.granted.incrementAndGet();
		}
		return claimed;
	}

	private boolean lettuce(String key) {
		String entry = this.prefix + key;
		if (!"OK".equals(this.lettuce.set(entry, "PROCESSING", CLAIM))) {
			return false;
		}
		if (this.completeSha == null) {
			this.lettuce.set(entry, "DONE", DONE);
		}
		else {
			this.lettuce.evalsha(this.completeSha, ScriptOutputType.INTEGER, new String[] { entry }, "PROCESSING",
					"DONE", Long.toString(DONE_MILLIS));
		}
		return true;
	}

	private static String completeScript() {
		try (InputStream in = RedisIdempotencyStore.class.getResourceAsStream("complete.lua")) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private boolean starter(String key) {
		IdempotencyKey idempotencyKey = new IdempotencyKey("bench", key);
		ClaimResult claim = this.store.claim(idempotencyKey, LEASE, RETENTION);
		if (!claim.isClaimed()) {
			return false;
		}
		this.store.complete(idempotencyKey, claim, RETENTION);
		return true;
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		long n = this.operations.get();
		long distinct = n - n / 10;
		String verdict = (this.granted.get() == distinct) ? "OK" : "WRONG";
		System.out.printf(Locale.ROOT, "[verdict] %s %s: operations=%d distinct keys=%d granted=%d%n", this.variant,
				verdict, n, distinct, this.granted.get());
		this.redis.close();
	}

	public static void main(String[] args) throws RunnerException {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 5;
		int seconds = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
		int passes = (args.length > 2) ? Integer.parseInt(args[2]) : 1;
		Map<String, List<Double>> results = new TreeMap<>();
		for (int pass = 0; pass < passes; pass++) {
			for (int threads : new int[] { 1, 4 }) {
				for (RunResult run : new Runner(new OptionsBuilder()
					.include(RedisClaimBenchmark.class.getName() + ".claimAndComplete")
					.forks(1)
					.threads(threads)
					.warmupIterations(2)
					.warmupTime(TimeValue.seconds(seconds))
					.measurementIterations(rounds)
					.measurementTime(TimeValue.seconds(seconds))
					.build()).run()) {
					String variant = run.getParams().getParam("variant");
					List<Double> scores = results.computeIfAbsent(threads + " threads " + variant,
							(k) -> new ArrayList<>());
					run.getBenchmarkResults()
						.forEach((result) -> result.getIterationResults()
							.forEach((iteration) -> scores.add(iteration.getPrimaryResult().getScore())));
				}
			}
		}
		System.out.println();
		System.out.println("| threads | variant | claims/s (median) | rounds min–max | ratio to raw Lettuce |");
		System.out.println("|---:|---|---:|---:|---:|");
		for (int threads : new int[] { 1, 4 }) {
			double raw = median(results.get(threads + " threads lettuce-setnx"));
			for (String variant : List.of("lettuce-setnx", "lettuce-cas", "starter-redis")) {
				List<Double> scores = results.get(threads + " threads " + variant);
				System.out.printf(Locale.ROOT, "| %d | %s | %,.0f | %,.0f–%,.0f | %.2f× |%n", threads, variant,
						median(scores), scores.stream().mapToDouble(Double::doubleValue).min().orElse(0),
						scores.stream().mapToDouble(Double::doubleValue).max().orElse(0), median(scores) / raw);
			}
		}
	}

	private static double median(List<Double> values) {
		List<Double> sorted = values.stream().sorted().toList();
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

}
