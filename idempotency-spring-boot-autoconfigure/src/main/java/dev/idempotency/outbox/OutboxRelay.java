package dev.idempotency.outbox;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import dev.idempotency.core.FailureClassifier;
import dev.idempotency.support.DaemonSchedulers;
import dev.idempotency.support.DefaultFailureClassifier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOff;

/**
 * Sends committed outbox rows to their brokers, from context start to stop, on a daemon thread of
 * its own. Each round:
 * <ol>
 * <li>claims up to {@code batchSize} due rows in a short transaction ({@code FOR UPDATE SKIP
 * LOCKED}), leasing them for {@code lease}, so that relays on other instances take other rows;</li>
 * <li>sends them outside any transaction and waits for every broker acknowledgement, at most
 * {@code sendTimeout} from the claim for the whole batch;</li>
 * <li>marks the acknowledged rows {@code SENT} in one statement; a failed row gets another
 * attempt after an exponential back-off with jitter.</li>
 * </ol>
 * <p>
 * While batches come back full, rounds overlap: the next batch is claimed and sent while the
 * acknowledgements of the previous one are awaited, up to {@code maxInFlightBatches} batches on
 * their way. A row is sent only right after its claim, under its lease, and every batch is answered
 * within {@code sendTimeout} of its claim, so within its lease.
 * <p>
 * Only a failure its sender calls the message's ({@link OutboxSender#isMessageFailure}) counts as
 * an attempt: after {@code maxAttempts} of them (or at once when no sender serves its destination)
 * the row is marked {@code DEAD}. A failure of the broker or the network, and the relay's own
 * {@code sendTimeout}, never count: the row is due again after the back-off, which grows with each
 * round of its sender that failed that way and reached nothing (capped by the back-off's maximum),
 * and is reset by the first message that gets through. An outage of any length therefore leaves the
 * backlog {@code PENDING}, to drain once the broker is back; it is logged once per round.
 * Rounds follow each other at once while batches come back full, then every {@code pollInterval};
 * {@link #wakeUp()} (called by the outbox after a commit on this instance) starts one at once, or,
 * while one is under way, has it claim the new rows at once, beside the batches still waiting for
 * their acknowledgements.
 * A relay that dies between the acknowledgement and the mark leaves its rows leased; once the lease
 * has passed, a relay sends them again with the same message id, which the consumers' dedup absorbs.
 * <p>
 * This class is the lifecycle and the scheduling; a round is an {@link OutboxDispatcher}'s, which
 * routes with an {@link OutboxSenderRouter} and retries as an {@link OutboxRetryPolicy} says.
 *
 * @since 0.1.0
 */
public class OutboxRelay implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(OutboxRelay.class);

	private final OutboxDispatcher dispatcher;

	private final Options options;

	private volatile boolean running;

	/** A round asked for by {@link #wakeUp()} is queued and has not started: more calls add nothing. */
	private final AtomicBoolean wakeUpQueued = new AtomicBoolean();

	/** Commits on this instance since the last claim, for a drain that is under way. */
	private final CommitSignal commits = new CommitSignal();

	private volatile boolean stopRequested;

	private volatile @Nullable ScheduledExecutorService executor;

	/**
	 * Creates a relay.
	 * @param repository the outbox table
	 * @param senders the senders to choose from, by destination prefix
	 * @param options how the relay polls, leases and retries
	 * @param clock the clock of latencies and back-off
	 * @param listeners told of every sent, failed and dead message
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #OutboxRelay(OutboxRepository, Supplier, Options,
	 * Clock, Supplier, FailureClassifier)} with a {@link DefaultFailureClassifier}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public OutboxRelay(OutboxRepository repository, Supplier<List<OutboxSender>> senders, Options options,
			Clock clock, Supplier<List<OutboxListener>> listeners) {
		this(repository, senders, options, clock, listeners, new DefaultFailureClassifier());
	}

	/**
	 * Creates a relay that shares the listeners' failure classification.
	 * @param repository the outbox table
	 * @param senders the senders to choose from, by destination prefix
	 * @param options how the relay polls, leases and retries
	 * @param clock the clock of latencies and back-off
	 * @param listeners told of every sent, failed and dead message
	 * @param classifier what it calls the infrastructure's never counts as an attempt, whatever the
	 * sender says
	 * @since 0.2.0
	 */
	public OutboxRelay(OutboxRepository repository, Supplier<List<OutboxSender>> senders, Options options,
			Clock clock, Supplier<List<OutboxListener>> listeners, FailureClassifier classifier) {
		this.dispatcher = new OutboxDispatcher(repository, senders, options, clock, listeners, classifier);
		this.options = options;
	}

	/**
	 * Claims and sends rows until a batch comes back short (and no {@link #wakeUp()} came since its
	 * claim) or the relay is stopped, on the calling thread, with up to
	 * {@link Options#maxInFlightBatches()} batches on their way: the next batch is claimed and sent
	 * while the acknowledgements of the previous one are awaited. Returns once every batch it claimed
	 * was acknowledged (or failed, or timed out) and marked.
	 * @return how many rows were claimed
	 */
	public int drain() {
		return this.dispatcher.drain(() -> this.stopRequested, this.commits);
	}

	/**
	 * Claims one batch, sends it and records the outcome of every row, on the calling thread.
	 * @return how many rows were claimed
	 */
	public int runOnce() {
		return this.dispatcher.dispatch();
	}

	/**
	 * Starts a round now instead of at the next poll, on the relay's own thread; rounds never
	 * overlap, and calls made while one is already queued are merged into it. A round under way
	 * claims the new rows at its next step, without waiting for the acknowledgements of its batches
	 * in flight (while fewer than {@link Options#maxInFlightBatches()} are). Does nothing while the
	 * relay is stopped. Rows committed on other instances still wait for the poll.
	 */
	public void wakeUp() {
		ScheduledExecutorService executor = this.executor;
		if (executor == null) {
			return;
		}
		// A drain under way claims the new rows at its next step instead of after its batches.
		this.commits.raise();
		if (!this.wakeUpQueued.compareAndSet(false, true)) {
			return;
		}
		try {
			executor.execute(() -> {
				this.wakeUpQueued.set(false);
				drainSafely();
			});
		}
		catch (RejectedExecutionException ex) {
			// Stopping: the rows wait for the next start or another instance's relay.
			this.wakeUpQueued.set(false);
		}
	}

	private void drainSafely() {
		try {
			drain();
		}
		catch (RuntimeException ex) {
			logger.warn("Outbox relay round failed; claimed rows are retried once their lease has passed", ex);
		}
	}

	@Override
	public synchronized void start() {
		if (this.executor != null) {
			return;
		}
		ScheduledExecutorService executor = DaemonSchedulers.singleThread("idempotency-outbox-relay");
		long intervalMillis = Math.max(1, this.options.pollInterval().toMillis());
		long initialDelay = ThreadLocalRandom.current().nextLong(intervalMillis);
		executor.scheduleWithFixedDelay(this::drainSafely, initialDelay, intervalMillis, TimeUnit.MILLISECONDS);
		this.stopRequested = false;
		this.executor = executor;
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService executor = this.executor;
		if (executor == null) {
			return;
		}
		this.stopRequested = true;
		this.running = false;
		this.executor = null;
		executor.shutdown();
		try {
			// Let the batches in flight be acknowledged and marked (each within the send timeout of
			// its claim, and no new one is claimed), then interrupt.
			if (!executor.awaitTermination(this.options.sendTimeout().toMillis() + 5000, TimeUnit.MILLISECONDS)) {
				executor.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			executor.shutdownNow();
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * How a relay polls, leases and retries.
	 *
	 * @param pollInterval delay between rounds when there is nothing (more) to send
	 * @param batchSize rows claimed per round
	 * @param lease how long claimed rows are held; longer than {@code sendTimeout}
	 * @param sendTimeout longest wait for the acknowledgements of one batch
	 * @param maxAttempts send attempts of a row before it is marked dead
	 * @param backOff delays between attempts of a row
	 * @param orderedPerKey whether a row waits for every earlier row of its key to be sent
	 * @param maxInFlightBatches how many batches may be on their way at once: claimed and sent, their
	 * acknowledgements awaited or their marks not yet written; 1 sends a batch only once the one
	 * before was acknowledged and marked
	 */
	public record Options(Duration pollInterval, int batchSize, Duration lease, Duration sendTimeout, int maxAttempts,
			BackOff backOff, boolean orderedPerKey, int maxInFlightBatches) {

		/**
		 * Batches on their way at once when not given.
		 * @since 0.2.0
		 */
		public static final int DEFAULT_MAX_IN_FLIGHT_BATCHES = 3;

		public Options {
			Assert.isTrue(pollInterval.toMillis() > 0, "pollInterval must be at least 1ms");
			Assert.isTrue(batchSize >= 1, "batchSize must be at least 1");
			Assert.isTrue(maxInFlightBatches >= 1, "maxInFlightBatches must be at least 1");
			Assert.isTrue(maxAttempts >= 1, "maxAttempts must be at least 1");
			Assert.isTrue(sendTimeout.toMillis() > 0, "sendTimeout must be positive");
			Assert.isTrue(lease.compareTo(sendTimeout) > 0,
					"lease must be longer than sendTimeout, or rows would be claimed again while being sent");
		}

		/**
		 * Options with {@value #DEFAULT_MAX_IN_FLIGHT_BATCHES} batches in flight at most.
		 * @param pollInterval delay between rounds when there is nothing (more) to send
		 * @param batchSize rows claimed per round
		 * @param lease how long claimed rows are held; longer than {@code sendTimeout}
		 * @param sendTimeout longest wait for the acknowledgements of one batch
		 * @param maxAttempts send attempts of a row before it is marked dead
		 * @param backOff delays between attempts of a row
		 * @param orderedPerKey whether a row waits for every earlier row of its key to be sent
		 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #Options(Duration, int, Duration, Duration, int,
		 * BackOff, boolean, int)} with {@link #DEFAULT_MAX_IN_FLIGHT_BATCHES}
		 */
		@Deprecated(since = "0.2.0", forRemoval = true)
		public Options(Duration pollInterval, int batchSize, Duration lease, Duration sendTimeout, int maxAttempts,
				BackOff backOff, boolean orderedPerKey) {
			this(pollInterval, batchSize, lease, sendTimeout, maxAttempts, backOff, orderedPerKey,
					DEFAULT_MAX_IN_FLIGHT_BATCHES);
		}

	}

}
