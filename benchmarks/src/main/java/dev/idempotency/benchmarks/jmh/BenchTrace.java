package dev.idempotency.benchmarks.jmh;

import dev.idempotency.benchmarks.support.Database;

/**
 * A diagnostic, not a benchmark: delivers a fixed number of messages to one variant on one thread,
 * prints the mean wall time and the mean client CPU time (this thread's) per message and the
 * verification; client CPU time is much steadier than throughput on a busy machine, so that a database statement log (for
 * example PostgreSQL's {@code log_statement = 'all'}) or a profiler can be read for a known number of
 * messages (the statements {@code SELECT 'bench-trace-start'} and {@code SELECT 'bench-trace-end'} mark
 * the traced part in such a log). Usage: {@code BenchTrace <variant> <postgresql|mariadb> [messages] [warm-up messages]}.
 */
public final class BenchTrace {

	private BenchTrace() {
	}

	public static void main(String[] args) {
		String variantName = args[0];
		Database database = Database.of(args[1]);
		int messages = (args.length > 2) ? Integer.parseInt(args[2]) : 20;
		int warmup = (args.length > 3) ? Integer.parseInt(args[3]) : 0;
		try (Bench bench = new Bench(database, 1)) {
			bench.prepare();
			try (DedupVariant variant = Variants.create(variantName, bench)) {
				for (int i = 0; i < warmup; i++) {
					bench.deliver(variant);
				}
				System.out.println("--- trace start " + bench.runId());
				// Markers for a statement log: everything between them belongs to the traced messages.
				bench.jdbc().queryForObject("SELECT 'bench-trace-start'", String.class);
				java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
				long cpuStarted = cpu.getCurrentThreadCpuTime();
				long started = System.nanoTime();
				for (int i = 0; i < messages; i++) {
					bench.deliver(variant);
				}
				long elapsed = System.nanoTime() - started;
				long cpuUsed = cpu.getCurrentThreadCpuTime() - cpuStarted;
				bench.jdbc().queryForObject("SELECT 'bench-trace-end'", String.class);
				System.out.println("--- trace end");
				System.out.printf("%s on %s: %d messages, %.1f µs per message (wall), %.1f µs client CPU per message%n",
						variantName, database.id(), messages, elapsed / 1000.0 / messages, cpuUsed / 1000.0 / messages);
				System.out.println(bench.verify(variant));
			}
		}
	}

}
