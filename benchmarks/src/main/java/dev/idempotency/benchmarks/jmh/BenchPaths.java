package dev.idempotency.benchmarks.jmh;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Message;
import dev.idempotency.benchmarks.support.MessageStream;

/**
 * A diagnostic, not part of the report: the duplicate path against the new-message path of one
 * variant, on one thread. In each block, a batch of new messages is delivered, then the same batch
 * again (every delivery a committed duplicate), so both halves see the same background load; the
 * result is the median over the blocks of the wall time per message of each half, and the median of
 * the per-block ratios duplicate / new. Usage:
 * {@code BenchPaths <postgresql|mariadb> <variant> [blocks] [messages per block]}.
 */
public final class BenchPaths {

	private BenchPaths() {
	}

	public static void main(String[] args) {
		Database database = Database.of(args[0]);
		String name = args[1];
		int blocks = (args.length > 2) ? Integer.parseInt(args[2]) : 40;
		int size = (args.length > 3) ? Integer.parseInt(args[3]) : 200;
		try (Bench bench = new Bench(database, 1)) {
			bench.prepare();
			try (DedupVariant variant = Variants.create(name, bench)) {
				MessageStream stream = new MessageStream(bench.runId() + "-paths", Bench.ACCOUNTS);
				Set<String> seen = new HashSet<>();
				List<Double> news = new ArrayList<>();
				List<Double> duplicates = new ArrayList<>();
				List<Double> ratios = new ArrayList<>();
				int warmup = Math.max(2, blocks / 4);
				for (int block = 0; block < warmup + blocks; block++) {
					List<Message> batch = new ArrayList<>(size);
					while (batch.size() < size) {
						Message message = stream.next();
						if (seen.add(message.getKey())) {
							batch.add(message);
						}
					}
					double newMicros = deliver(variant, batch, true);
					double duplicateMicros = deliver(variant, batch, false);
					if (block >= warmup) {
						news.add(newMicros);
						duplicates.add(duplicateMicros);
						ratios.add(duplicateMicros / newMicros);
					}
				}
				System.out.printf("%s on %s: new %.1f µs/msg, duplicate %.1f µs/msg (medians of %d blocks of %d), "
						+ "duplicate / new %.2f (median of the blocks' ratios; quartiles %.2f–%.2f)%n", name,
						database.id(), median(news), median(duplicates), blocks, size, median(ratios),
						quantile(ratios, 0.25), quantile(ratios, 0.75));
			}
		}
	}

	private static double deliver(DedupVariant variant, List<Message> batch, boolean expectRun) {
		long started = System.nanoTime();
		for (Message message : batch) {
			if (variant.process(message) != expectRun) {
				throw new IllegalStateException(message + (expectRun ? " was skipped as a duplicate" : " ran twice"));
			}
		}
		return (System.nanoTime() - started) / 1000.0 / batch.size();
	}

	private static double median(List<Double> values) {
		return quantile(values, 0.5);
	}

	private static double quantile(List<Double> values, double q) {
		List<Double> sorted = new ArrayList<>(values);
		sorted.sort(null);
		return sorted.get((int) Math.min(sorted.size() - 1, Math.round(q * (sorted.size() - 1))));
	}

}
