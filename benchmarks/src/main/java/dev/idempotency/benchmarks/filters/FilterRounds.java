package dev.idempotency.benchmarks.filters;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.idempotency.benchmarks.support.InterleavedRounds;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The workloads of the filter suite, each delivering a list of message ids through a variant's
 * {@code @Idempotent} method from {@code consumers} threads (a delivery that throws is delivered
 * again, as a broker would, up to 20 times), then checking the ledger:
 * <ul>
 * <li>{@link #preload}: the storm's keys, processed once (not timed);</li>
 * <li>{@link #storm}: every preloaded key again, mixed with 10% new keys, shuffled;</li>
 * <li>{@link #normal}: new keys, every tenth message re-sending the one five positions earlier.</li>
 * </ul>
 * Each timed round also records, from the variant's meters, the share of replayed duplicates a
 * filter answered {@code completed}, and, from its transaction count, the share that opened no
 * transaction.
 */
final class FilterRounds {

	private static final int MAX_DELIVERIES = 20;

	private final JdbcTemplate admin;

	private final int stormKeys;

	private final int normalMessages;

	FilterRounds(JdbcTemplate admin, int stormKeys, int normalMessages) {
		this.admin = admin;
		this.stormKeys = stormKeys;
		this.normalMessages = normalMessages;
	}

	/**
	 * One timed workload of one variant, with what its rounds learned beyond the rate. Compared by
	 * identity: the round loop keys its maps by lane while the lists grow.
	 */
	static final class Lane {

		private final FilterApp app;

		private final String workload;

		private final List<Double> withoutDb = new ArrayList<>();

		private final List<Double> withoutTransaction = new ArrayList<>();

		Lane(FilterApp app, String workload) {
			this.app = app;
			this.workload = workload;
		}

		FilterApp app() {
			return this.app;
		}

		String workload() {
			return this.workload;
		}

		/** Per storm round: % of replayed duplicates a filter answered {@code completed}. */
		List<Double> withoutDb() {
			return this.withoutDb;
		}

		/** Per storm round: % of replayed duplicates that opened no transaction. */
		List<Double> withoutTransaction() {
			return this.withoutTransaction;
		}

		String label() {
			return this.workload + " | " + this.app.label();
		}

	}

	/** The outcome of delivering a list of ids. */
	record Delivery(double seconds, long redeliveries, String lost) {
	}

	/** Processes the storm's keys (ids 1..stormKeys) once through the method, with 4 threads. */
	String preload(FilterApp app) throws InterruptedException {
		long first = app.reserveIds(this.stormKeys);
		if (first != 1) {
			throw new IllegalStateException("The storm's keys are ids 1.." + this.stormKeys + ": preload first");
		}
		long[] ids = new long[this.stormKeys];
		for (int i = 0; i < ids.length; i++) {
			ids[i] = first + i;
		}
		Delivery delivery = deliver(app, ids, 4);
		List<String> problems = FilterLedger.appliedOnce(this.admin, app.namespace(), first, first + this.stormKeys);
		return String.format("%s: %,d keys pre-loaded at %,.0f msgs/s%s", app.name(), this.stormKeys,
				this.stormKeys / delivery.seconds(), problems.isEmpty() ? "" : " — WRONG: " + problems);
	}

	/** A replay storm: the preloaded keys again, plus 10% new ones, shuffled. */
	InterleavedRounds.Result storm(Lane lane, int consumers, int round) throws InterruptedException {
		FilterApp app = lane.app();
		int fresh = this.stormKeys / 10;
		long first = app.reserveIds(fresh);
		long[] ids = new long[this.stormKeys + fresh];
		for (int i = 0; i < this.stormKeys; i++) {
			ids[i] = 1 + i;
		}
		for (int i = 0; i < fresh; i++) {
			ids[this.stormKeys + i] = first + i;
		}
		shuffle(ids, new Random(round * 31L + consumers));
		double completedBefore = app.completedAnswers();
		long transactionsBefore = app.transactions();
		Delivery delivery = deliver(app, ids, consumers);
		double completed = app.completedAnswers() - completedBefore;
		long transactions = app.transactions() - transactionsBefore;
		// A new key opens one transaction; so does every redelivery and every duplicate the filters
		// did not answer.
		double replayedInTransactions = transactions - fresh - delivery.redeliveries();
		lane.withoutDb().add(100.0 * completed / this.stormKeys);
		lane.withoutTransaction().add(100.0 * (this.stormKeys - replayedInTransactions) / this.stormKeys);
		List<String> problems = new ArrayList<>(FilterLedger.appliedOnce(this.admin, app.namespace(), 1,
				1 + this.stormKeys));
		problems.addAll(FilterLedger.appliedOnce(this.admin, app.namespace(), first, first + fresh));
		String counts = String.format("replayed=%d new=%d completed-answers=%.0f transactions=%d redeliveries=%d",
				this.stormKeys, fresh, completed, transactions, delivery.redeliveries());
		return result(ids.length, delivery, problems, counts);
	}

	/** The normal workload: new keys, about 10% re-sent. */
	InterleavedRounds.Result normal(Lane lane, int consumers, int round) throws InterruptedException {
		FilterApp app = lane.app();
		long[] ids = new long[this.normalMessages];
		int unique = 0;
		for (int i = 0; i < ids.length; i++) {
			unique += (i % 10 == 9) ? 0 : 1;
		}
		long first = app.reserveIds(unique);
		long next = first;
		for (int i = 0; i < ids.length; i++) {
			ids[i] = (i % 10 == 9) ? ids[i - 5] : next++;
		}
		long transactionsBefore = app.transactions();
		Delivery delivery = deliver(app, ids, consumers);
		long transactions = app.transactions() - transactionsBefore;
		List<String> problems = FilterLedger.appliedOnce(this.admin, app.namespace(), first, next);
		String counts = String.format("messages=%d unique=%d transactions=%d redeliveries=%d", ids.length, unique,
				transactions, delivery.redeliveries());
		return result(ids.length, delivery, problems, counts);
	}

	private static InterleavedRounds.Result result(int messages, Delivery delivery, List<String> problems,
			String counts) {
		if (delivery.lost() != null) {
			problems.add(0, "lost: " + delivery.lost());
		}
		String verdict = problems.isEmpty() ? "OK (" + counts + ")"
				: "WRONG — " + String.join("; ", problems) + " (" + counts + ")";
		return new InterleavedRounds.Result(messages / delivery.seconds(), delivery.seconds(), verdict);
	}

	/** Delivers every id once from {@code consumers} threads that take the next id in turn. */
	static Delivery deliver(FilterApp app, long[] ids, int consumers) throws InterruptedException {
		AtomicInteger next = new AtomicInteger();
		AtomicLong redeliveries = new AtomicLong();
		AtomicReference<String> lost = new AtomicReference<>();
		Runnable consumer = () -> {
			for (int i = next.getAndIncrement(); i < ids.length; i = next.getAndIncrement()) {
				for (int attempt = 1;; attempt++) {
					try {
						app.process(ids[i]);
						break;
					}
					catch (RuntimeException ex) {
						if (attempt == MAX_DELIVERIES) {
							lost.compareAndSet(null, "id " + ids[i] + " failed " + attempt + " times: " + ex);
							break;
						}
						redeliveries.incrementAndGet();
					}
				}
			}
		};
		List<Thread> threads = new ArrayList<>();
		long start = System.nanoTime();
		for (int c = 0; c < consumers; c++) {
			Thread thread = new Thread(consumer, "bench-consumer-" + c);
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		return new Delivery((System.nanoTime() - start) / 1e9, redeliveries.get(), lost.get());
	}

	private static void shuffle(long[] ids, Random random) {
		for (int i = ids.length - 1; i > 0; i--) {
			int j = random.nextInt(i + 1);
			long swap = ids[i];
			ids[i] = ids[j];
			ids[j] = swap;
		}
	}

}
