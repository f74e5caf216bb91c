package dev.idempotency.benchmarks.support;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;

import com.sun.management.ThreadMXBean;

/**
 * What some threads of this JVM have spent so far: CPU time and heap bytes allocated (HotSpot's
 * per-thread counters), summed over the live threads whose names start with a prefix, such as a
 * listener container's consumer threads. The difference across a round, divided by its messages, is
 * the client's cost per message on those threads: polling and deserializing, the listener, the
 * transaction and the JDBC driver's client side, without the broker or the database.
 *
 * @param cpuNanos CPU time of those threads
 * @param allocatedBytes heap bytes allocated by those threads
 */
public record ThreadCost(long cpuNanos, long allocatedBytes) {

	private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

	/** The cost spent so far by the live threads whose name starts with {@code threadNamePrefix}. */
	public static ThreadCost of(String threadNamePrefix) {
		long cpu = 0;
		long allocated = 0;
		for (ThreadInfo thread : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
			if (thread != null && thread.getThreadName().startsWith(threadNamePrefix)) {
				cpu += Math.max(0, THREADS.getThreadCpuTime(thread.getThreadId()));
				allocated += Math.max(0, THREADS.getThreadAllocatedBytes(thread.getThreadId()));
			}
		}
		return new ThreadCost(cpu, allocated);
	}

	/** What was spent since {@code before}, per message. */
	public PerMessage perMessageSince(ThreadCost before, int messages) {
		return new PerMessage((this.cpuNanos - before.cpuNanos) / 1e3 / messages,
				(this.allocatedBytes - before.allocatedBytes) / messages);
	}

	/**
	 * The cost of one message on the measured threads.
	 *
	 * @param cpuMicros CPU time, in microseconds
	 * @param allocatedBytes heap bytes allocated
	 */
	public record PerMessage(double cpuMicros, long allocatedBytes) {

		@Override
		public String toString() {
			return String.format("cpu/msg=%.1f µs allocated/msg=%d B", this.cpuMicros, this.allocatedBytes);
		}

	}

}
