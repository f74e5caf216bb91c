package dev.idempotency.benchmarks.support;

import java.time.Duration;
import java.util.List;

/**
 * The timed part of one round of a harness whose variants consume messages prepared before it:
 * starts the consumers, polls until the round is done or 2 minutes passed, and takes what the
 * consumer threads spent meanwhile; then makes the round's {@link InterleavedRounds.Result} from the
 * checks of its end state.
 */
public final class TimedRound {

	private static final Duration LIMIT = Duration.ofMinutes(2);

	private final int messages;

	private final boolean finished;

	private final double seconds;

	private final ThreadCost.PerMessage cost;

	private TimedRound(int messages, boolean finished, double seconds, ThreadCost.PerMessage cost) {
		this.messages = messages;
		this.finished = finished;
		this.seconds = seconds;
		this.cost = cost;
	}

	/**
	 * Runs {@code start} and polls {@code done} every {@code pollMillis} until it holds (at most 2
	 * minutes): the clock and the cost of the threads named {@code threadPrefix...} run from before the
	 * start to the poll that saw the round done.
	 */
	public static TimedRound run(String threadPrefix, int messages, long pollMillis, Step start, Check done)
			throws Exception {
		ThreadCost before = ThreadCost.of(threadPrefix);
		long begin = System.nanoTime();
		start.run();
		long deadline = begin + LIMIT.toNanos();
		boolean finished = false;
		while (!finished && System.nanoTime() < deadline) {
			Waits.sleep(pollMillis);
			finished = done.holds();
		}
		long elapsed = System.nanoTime() - begin;
		return new TimedRound(messages, finished, elapsed / 1e9,
				ThreadCost.of(threadPrefix).perMessageSince(before, messages));
	}

	/** Whether the round was done within the time limit. */
	public boolean finished() {
		return this.finished;
	}

	/**
	 * The round's result: OK with {@code counts} and the cost when nothing is wrong, else WRONG with
	 * the problems, first that it did not finish in time if it did not.
	 * @param problems what the end state's checks found, modified
	 * @param counts what the round's line tells of its messages and effects
	 */
	public InterleavedRounds.Result result(List<String> problems, String counts) {
		if (!this.finished) {
			problems.add(0, "not finished within " + LIMIT.toMinutes() + " minutes");
		}
		return InterleavedRounds.Result.checked(this.messages, this.seconds, problems, counts, this.cost);
	}

	/** Starts the round's consumers. */
	@FunctionalInterface
	public interface Step {

		void run() throws Exception;

	}

	/** Whether the round is done. */
	@FunctionalInterface
	public interface Check {

		boolean holds() throws Exception;

	}

}
