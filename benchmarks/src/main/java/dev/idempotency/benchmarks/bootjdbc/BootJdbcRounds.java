package dev.idempotency.benchmarks.bootjdbc;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.management.ThreadMXBean;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Message;
import dev.idempotency.benchmarks.support.MessageStream;
import dev.idempotency.benchmarks.support.RunTables;
import dev.idempotency.benchmarks.support.ThreadCost;

/**
 * One timed round of one application: resets the tables (not timed), then {@code threads} threads
 * take the next message of one shared {@link MessageStream} (every tenth re-sends the message five
 * positions earlier, ~10% duplicates, some still in flight on another thread) and call the
 * application's bean, until {@code messages} were delivered; a call that throws delivers the same
 * message again, as a broker would, up to 20 times. The clock runs from the threads' start to the
 * last one's end. Then the end state is checked: one ledger row per distinct key, no key applied
 * twice, every balance.
 */
final class BootJdbcRounds implements AutoCloseable {

	private static final int MAX_ATTEMPTS = 20;

	private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final int messages;

	private final int threads;

	private final RunTables tables;

	BootJdbcRounds(Database database, int messages, int threads) {
		this.messages = messages;
		this.threads = threads;
		this.tables = new RunTables(database);
	}

	InterleavedRounds.Result run(BootJdbcApp app, int round) throws InterruptedException {
		this.tables.reset();
		MessageStream stream = new MessageStream(this.runId + "-" + app.name() + "-t" + this.threads + "-r" + round,
				LedgerTables.ACCOUNTS);
		AtomicInteger remaining = new AtomicInteger(this.messages);
		AtomicLong redeliveries = new AtomicLong();
		AtomicLong cpuNanos = new AtomicLong();
		AtomicLong allocated = new AtomicLong();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Thread> workers = new ArrayList<>();
		for (int i = 0; i < this.threads; i++) {
			workers.add(new Thread(() -> {
				long cpuBefore = THREADS.getCurrentThreadCpuTime();
				long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
				try {
					while (remaining.getAndDecrement() > 0) {
						deliver(app.ledger(), stream.next(), redeliveries);
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
					remaining.set(0);
				}
				cpuNanos.addAndGet(THREADS.getCurrentThreadCpuTime() - cpuBefore);
				allocated.addAndGet(THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore);
			}, "bench-" + app.name() + "-" + i));
		}
		long start = System.nanoTime();
		workers.forEach(Thread::start);
		for (Thread worker : workers) {
			worker.join();
		}
		double seconds = (System.nanoTime() - start) / 1e9;
		ThreadCost.PerMessage cost = new ThreadCost.PerMessage(cpuNanos.get() / 1e3 / this.messages,
				allocated.get() / this.messages);
		List<String> problems = this.tables.problems(stream);
		if (failure.get() != null) {
			problems.add(0, "gave up: " + failure.get());
		}
		if (stream.issued() != this.messages) {
			problems.add(0, stream.issued() + " messages delivered, not " + this.messages);
		}
		String counts = "messages=" + stream.issued() + " ledger=" + this.tables.ledgerRows() + " redeliveries="
				+ redeliveries.get();
		return InterleavedRounds.Result.checked(this.messages, seconds, problems, counts, cost);
	}

	/** Delivers {@code message} until a call returns, as a broker redelivers a failed message. */
	private static void deliver(Ledger ledger, Message message, AtomicLong redeliveries) {
		for (int attempt = 1;; attempt++) {
			try {
				ledger.apply(message);
				return;
			}
			catch (RuntimeException ex) {
				if (attempt == MAX_ATTEMPTS) {
					throw ex;
				}
				redeliveries.incrementAndGet();
			}
		}
	}

	@Override
	public void close() {
		this.tables.close();
	}

}
