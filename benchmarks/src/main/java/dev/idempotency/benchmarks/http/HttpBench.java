package dev.idempotency.benchmarks.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Options;
import dev.idempotency.benchmarks.support.ShippedSchema;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Requests per second and latency of an idempotent {@code POST} against the same handler without
 * {@code @Idempotent} ({@code plain}) and against the same idempotency written by hand ({@code hand}), in
 * one run, on one application and one database ({@code --db}, PostgreSQL by default): an embedded
 * Tomcat on a random port, the JDK's HTTP client with {@code --threads} connections each sending
 * requests back to back, every request a new key (the cost of a first request: claim, fingerprint,
 * stored response). Each set runs one round of {@code --round-time} seconds per variant, each set's
 * order rotated by one; the first {@code --warmup} sets are not counted. Reported: each variant's
 * median requests per second, the median of the per-set ratios, and the p50 and p99 of all counted
 * requests. At the end, the ledger rows must equal the 201s, and each variant's keys its 201s.
 * <p>
 * {@code java -cp ... dev.idempotency.benchmarks.http.HttpBench [--db postgresql|mariadb]
 * [--threads 8] [--rounds 6] [--warmup 2] [--round-time 10] [--variants plain,idempotent,hand]}; normally through
 * {@code scripts/bench.sh --suite http}.
 */
public final class HttpBench {

	private HttpBench() {
	}

	public static void main(String[] args) throws Exception {
		Options options = Options.parse(args);
		Database database = Database.of(options.text("db", "postgresql"));
		int threads = options.integer("threads", 8);
		int rounds = options.integer("rounds", 6);
		int warmup = options.integer("warmup", 2);
		Duration roundTime = Duration.ofSeconds(options.integer("round-time", 10));
		List<String> variants = List.of(options.text("variants", "plain,idempotent,hand").split(","));
		try (ConfigurableApplicationContext context = start(database, threads)) {
			int port = Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			Map<String, List<Double>> throughput = new LinkedHashMap<>();
			Map<String, List<long[]>> latencies = new LinkedHashMap<>();
			Map<String, List<Double>> ratios = new LinkedHashMap<>();
			Map<String, Long> created = new LinkedHashMap<>();
			HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
			for (int set = 0; set < warmup + rounds; set++) {
				List<String> order = rotated(variants, set);
				Map<String, Double> setRate = new LinkedHashMap<>();
				for (String variant : order) {
					Round round = round(client, port, variant, threads, roundTime);
					created.merge(variant, round.created(), Long::sum);
					setRate.put(variant, round.perSecond());
					boolean counted = set >= warmup;
					System.out.printf(Locale.ROOT, "%s set %d %-10s %8.0f req/s  p99 %6.2f ms  errors %d%n",
							counted ? "round" : "warmup", set, variant, round.perSecond(),
							percentile(round.latencies(), 0.99) / 1e6, round.errors());
					if (counted) {
						throughput.computeIfAbsent(variant, (key) -> new ArrayList<>()).add(round.perSecond());
						latencies.computeIfAbsent(variant, (key) -> new ArrayList<>()).add(round.latencies());
					}
				}
				if (set >= warmup) {
					for (String[] ratio : RATIOS) {
						if (setRate.containsKey(ratio[0]) && setRate.containsKey(ratio[1])) {
							ratios.computeIfAbsent(ratio[0] + " / " + ratio[1], (key) -> new ArrayList<>())
								.add(setRate.get(ratio[0]) / setRate.get(ratio[1]));
						}
					}
				}
			}
			long ledger = jdbc.queryForObject("SELECT COUNT(*) FROM bench_http_ledger", Long.class);
			long keys = jdbc.queryForObject("SELECT COUNT(*) FROM bench_http_record", Long.class);
			long handKeys = jdbc.queryForObject("SELECT COUNT(*) FROM " + HttpBenchApp.HAND_KEYS, Long.class);
			long responses = created.values().stream().mapToLong(Long::longValue).sum();
			System.out.println();
			System.out.printf(Locale.ROOT,
					"%s, %d threads, %d rounds of %ds per variant (rotated order), after %d warm-up sets%n",
					database.productName(), threads, rounds, roundTime.toSeconds(), warmup);
			System.out.println("| variant | req/s (median) | p50 ms | p99 ms |");
			System.out.println("|---|---|---|---|");
			for (String variant : variants) {
				long[] all = concat(latencies.get(variant));
				System.out.printf(Locale.ROOT, "| %s | %.0f | %.2f | %.2f |%n", variant, median(throughput.get(variant)),
						percentile(all, 0.50) / 1e6, percentile(all, 0.99) / 1e6);
			}
			ratios.forEach((name, values) -> System.out.printf(Locale.ROOT, "%s: median ratio %.3f (sets %s)%n", name,
					median(values), values.stream().map((ratio) -> String.format(Locale.ROOT, "%.3f", ratio)).toList()));
			long idempotent = created.getOrDefault("idempotent", 0L);
			long hand = created.getOrDefault("hand", 0L);
			System.out.printf(
					"check: %d ledger rows for %d created responses, %d keys for %d idempotent ones, %d hand keys for %d hand ones: %s%n",
					ledger, responses, keys, idempotent, handKeys, hand,
					(ledger == responses && keys == idempotent && handKeys == hand) ? "OK" : "WRONG");
		}
	}

	/** Ratios reported when both variants ran. */
	private static final String[][] RATIOS = { { "idempotent", "plain" }, { "idempotent", "hand" },
			{ "hand", "plain" } };

	/** Each set starts one variant later, so that every variant runs first, second and last equally. */
	private static List<String> rotated(List<String> variants, int set) {
		List<String> order = new ArrayList<>(variants);
		java.util.Collections.rotate(order, -(set % variants.size()));
		return order;
	}

	private static ConfigurableApplicationContext start(Database database, int threads) {
		Map<String, Object> properties = new LinkedHashMap<>(database.springProperties(threads + 2));
		properties.put("spring.main.banner-mode", "off");
		properties.put("logging.level.root", "warn");
		properties.put("server.port", 0);
		properties.put("idempotency.jdbc.table-name", "bench_http_record");
		properties.put("idempotency.jdbc.initialize-schema", "never");
		// The table is created below, after start-up: on a fresh database the check would stop it.
		properties.put("idempotency.jdbc.schema-check", "off");
		properties.put("idempotency.jdbc.purge.enabled", false);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(HttpBenchApp.class)
			.web(WebApplicationType.SERVLET)
			.properties(properties)
			.logStartupInfo(false)
			.run();
		JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
		LedgerTables.createAccountsAndLedger(jdbc, database, "bench_http", HttpBenchApp.ACCOUNTS);
		jdbc.execute("DROP TABLE IF EXISTS bench_http_record");
		ShippedSchema.create(jdbc, "dev/idempotency/store/jdbc/schema-" + database.id() + ".sql",
				"idempotency_record", "bench_http_record");
		jdbc.execute("DROP TABLE IF EXISTS " + HttpBenchApp.HAND_KEYS);
		jdbc.execute(HttpBenchApp.handKeysDdl(database == Database.POSTGRESQL));
		jdbc.execute("TRUNCATE bench_http_ledger");
		return context;
	}

	private static Round round(HttpClient client, int port, String variant, int threads, Duration time)
			throws Exception {
		URI uri = URI.create("http://127.0.0.1:" + port + "/" + variant);
		long end = System.nanoTime() + time.toNanos();
		AtomicLong errors = new AtomicLong();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<long[]>> workers = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				workers.add(executor.submit(() -> {
					long[] samples = new long[1 << 16];
					int count = 0;
					while (System.nanoTime() < end) {
						String reference = UUID.randomUUID().toString();
						int account = ThreadLocalRandom.current().nextInt(HttpBenchApp.ACCOUNTS);
						HttpRequest request = HttpRequest.newBuilder(uri)
							.header("Content-Type", "application/json")
							.header("Idempotency-Key", reference)
							.POST(HttpRequest.BodyPublishers.ofString("{\"reference\":\"" + reference
									+ "\",\"account\":" + account + ",\"amount\":5}"))
							.build();
						long started = System.nanoTime();
						HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
						long took = System.nanoTime() - started;
						if (response.statusCode() != 201) {
							errors.incrementAndGet();
							continue;
						}
						if (count == samples.length) {
							samples = Arrays.copyOf(samples, count * 2);
						}
						samples[count++] = took;
					}
					return Arrays.copyOf(samples, count);
				}));
			}
			List<long[]> all = new ArrayList<>();
			for (Future<long[]> worker : workers) {
				all.add(worker.get());
			}
			long[] latencies = concat(all);
			return new Round(latencies.length / (time.toNanos() / 1e9), latencies, latencies.length, errors.get());
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static long[] concat(List<long[]> parts) {
		long[] all = new long[parts.stream().mapToInt((part) -> part.length).sum()];
		int at = 0;
		for (long[] part : parts) {
			System.arraycopy(part, 0, all, at, part.length);
			at += part.length;
		}
		return all;
	}

	private static double percentile(long[] values, double quantile) {
		if (values.length == 0) {
			return 0;
		}
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[(int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)];
	}

	private static double median(List<Double> values) {
		List<Double> sorted = values.stream().sorted().toList();
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

	private record Round(double perSecond, long[] latencies, long created, long errors) {
	}

}
