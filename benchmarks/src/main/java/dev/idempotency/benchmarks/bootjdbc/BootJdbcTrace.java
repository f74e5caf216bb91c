package dev.idempotency.benchmarks.bootjdbc;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

import com.sun.management.ThreadMXBean;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.MessageStream;

import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A diagnostic, not a benchmark: what one application of the Boot JDBC suite sends to the database
 * per message. Delivers warm-up messages on one thread, then switches the JDBC driver's logger to
 * TRACE (MariaDB Connector/J logs every packet it sends, pgjdbc every protocol message) and delivers
 * the traced messages between two marker statements, {@code SELECT 'bench-trace-start'} and
 * {@code SELECT 'bench-trace-end'}; count the driver's lines between them. Prints the wall time, this
 * thread's CPU time and its allocated bytes per traced message ({@code -Dbench.trace=false}: without
 * the driver's log, for these numbers or a profiler). Usage:
 * {@code BootJdbcTrace <hand|starter> <postgresql|mariadb> [messages] [warm-up messages] [property=value ...]}.
 */
public final class BootJdbcTrace {

	private BootJdbcTrace() {
	}

	public static void main(String[] args) {
		String variant = args[0];
		Database database = Database.of(args[1]);
		int messages = (args.length > 2) ? Integer.parseInt(args[2]) : 20;
		int warmup = (args.length > 3) ? Integer.parseInt(args[3]) : 200;
		Map<String, Object> extra = new LinkedHashMap<>();
		for (int i = 4; i < args.length; i++) {
			String[] pair = args[i].split("=", 2);
			extra.put(pair[0], pair[1]);
		}
		LedgerTables tables = LedgerTables.of(database);
		try (BootJdbcApp app = new BootJdbcApp(variant, database, extra)) {
			JdbcTemplate jdbc = app.context().getBean(JdbcTemplate.class);
			tables.create(jdbc);
			tables.reset(jdbc);
			MessageStream stream = new MessageStream("trace-" + System.nanoTime(), LedgerTables.ACCOUNTS);
			for (int i = 0; i < warmup; i++) {
				app.ledger().apply(stream.next());
			}
			LoggingSystem logging = LoggingSystem.get(BootJdbcTrace.class.getClassLoader());
			String driver = (database == Database.MARIADB) ? "org.mariadb.jdbc" : "org.postgresql";
			boolean trace = Boolean.parseBoolean(System.getProperty("bench.trace", "true"));
			if (trace) {
				logging.setLogLevel(driver, LogLevel.TRACE);
			}
			jdbc.queryForObject("SELECT 'bench-trace-start'", String.class);
			ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
			long cpu = threads.getCurrentThreadCpuTime();
			long allocated = threads.getCurrentThreadAllocatedBytes();
			long started = System.nanoTime();
			for (int i = 0; i < messages; i++) {
				app.ledger().apply(stream.next());
			}
			long elapsed = System.nanoTime() - started;
			cpu = threads.getCurrentThreadCpuTime() - cpu;
			allocated = threads.getCurrentThreadAllocatedBytes() - allocated;
			jdbc.queryForObject("SELECT 'bench-trace-end'", String.class);
			logging.setLogLevel(driver, LogLevel.WARN);
			System.out.printf("%s: %d messages after %d: %.1f µs wall, %.1f µs client CPU, %d B allocated per message%n",
					app.describe(), messages, warmup, elapsed / 1e3 / messages, cpu / 1e3 / messages,
					allocated / messages);
		}
	}

}
