package dev.idempotency.benchmarks.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.benchmarks.support.Database;

/**
 * A diagnostic for a noisy machine, not part of the report: alternates two variants on one thread in
 * short blocks (A B, B A, A B, ...), so that both see the same background load, and prints the median
 * wall time and client CPU time per message of each and the throughput ratio A/B. Each variant has its
 * own run id and stream; the tables are shared, so no verification is done here (the JMH run does it).
 * With more than one thread, each block runs its messages on that many threads and the CPU column is
 * the whole JVM's CPU time per message.
 * Usage: {@code BenchAB <postgresql|mariadb> <variantA> <variantB> [blocks] [messages per block] [threads]}.
 */
public final class BenchAB {

	private BenchAB() {
	}

	public static void main(String[] args) {
		Database database = Database.of(args[0]);
		String nameA = args[1];
		String nameB = args[2];
		int blocks = (args.length > 3) ? Integer.parseInt(args[3]) : 40;
		int size = (args.length > 4) ? Integer.parseInt(args[4]) : 200;
		int threads = (args.length > 5) ? Integer.parseInt(args[5]) : 1;
		ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
		try (Bench benchA = new Bench(database, threads); Bench benchB = new Bench(database, threads)) {
			benchA.prepare();
			try (DedupVariant a = Variants.create(nameA, benchA); DedupVariant b = Variants.create(nameB, benchB)) {
				// warm-up: a quarter of the blocks, not recorded
				for (int i = 0; i < Math.max(2, blocks / 4); i++) {
					block(benchA, a, size, threads, cpu);
					block(benchB, b, size, threads, cpu);
				}
				List<double[]> resultsA = new ArrayList<>();
				List<double[]> resultsB = new ArrayList<>();
				for (int i = 0; i < blocks; i++) {
					if (i % 2 == 0) {
						resultsA.add(block(benchA, a, size, threads, cpu));
						resultsB.add(block(benchB, b, size, threads, cpu));
					}
					else {
						resultsB.add(block(benchB, b, size, threads, cpu));
						resultsA.add(block(benchA, a, size, threads, cpu));
					}
				}
				double wallA = median(resultsA, 0);
				double wallB = median(resultsB, 0);
				print(nameA, database, wallA, resultsA);
				print(nameB, database, wallB, resultsB);
				List<Double> ratios = new ArrayList<>();
				for (int i = 0; i < blocks; i++) {
					ratios.add(resultsB.get(i)[0] / resultsA.get(i)[0]);
				}
				ratios.sort(null);
				System.out.printf("throughput %s / %s: %.3f (median of %d paired blocks; quartiles %.3f–%.3f)%n", nameA,
						nameB, ratios.get(blocks / 2), blocks, ratios.get(blocks / 4), ratios.get(3 * blocks / 4));
			}
		}
	}

	/**
	 * Prints the median wall time, and the client and whole-machine CPU time per message as sums over
	 * all blocks (the CPU clocks tick in 10 ms steps, too coarse for a per-block median).
	 */
	private static void print(String name, Database database, double wall, List<double[]> results) {
		double client = results.stream().mapToDouble((r) -> r[1]).sum() / results.size();
		double machine = results.stream().mapToDouble((r) -> r[2]).sum() / results.size();
		double busy = machine / (wall * Runtime.getRuntime().availableProcessors());
		System.out.printf("%s on %s: median %.1f µs/msg wall, mean %.1f µs/msg client CPU, mean %.1f µs/msg machine "
				+ "CPU (client + database + rest), machine %.0f%% busy%n", name, database.id(), wall, client, machine,
				busy * 100);
	}

	/** Busy CPU time of the whole machine in µs, from {@code /proc/stat} (0 where there is none). */
	private static double machineBusyMicros() {
		try {
			String[] fields = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0).trim()
				.split("\\s+");
			long busy = 0;
			for (int i = 1; i < fields.length; i++) {
				busy += (i == 4 || i == 5) ? 0 : Long.parseLong(fields[i]); // 4 idle, 5 iowait
			}
			return busy * 10_000.0; // USER_HZ = 100
		}
		catch (java.io.IOException | RuntimeException ex) {
			return 0;
		}
	}

	private static double[] block(Bench bench, DedupVariant variant, int size, int threads, ThreadMXBean cpu) {
		if (threads > 1) {
			return parallelBlock(bench, variant, size, threads);
		}
		long cpuStarted = cpu.getCurrentThreadCpuTime();
		double machineStarted = machineBusyMicros();
		long started = System.nanoTime();
		for (int i = 0; i < size; i++) {
			bench.deliver(variant);
		}
		return new double[] { (System.nanoTime() - started) / 1000.0 / size,
				(cpu.getCurrentThreadCpuTime() - cpuStarted) / 1000.0 / size,
				(machineBusyMicros() - machineStarted) / size };
	}

	private static double[] parallelBlock(Bench bench, DedupVariant variant, int size, int threads) {
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		long cpuStarted = os.getProcessCpuTime();
		double machineStarted = machineBusyMicros();
		long started = System.nanoTime();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				for (int i = 0; i < size / threads; i++) {
					bench.deliver(variant);
				}
			});
			worker.start();
			workers.add(worker);
		}
		for (Thread worker : workers) {
			try {
				worker.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		int delivered = (size / threads) * threads;
		return new double[] { (System.nanoTime() - started) / 1000.0 / delivered,
				(os.getProcessCpuTime() - cpuStarted) / 1000.0 / delivered,
				(machineBusyMicros() - machineStarted) / delivered };
	}

	private static double median(List<double[]> results, int index) {
		List<Double> values = new ArrayList<>();
		results.forEach((r) -> values.add(r[index]));
		values.sort(null);
		return values.get(values.size() / 2);
	}

}
