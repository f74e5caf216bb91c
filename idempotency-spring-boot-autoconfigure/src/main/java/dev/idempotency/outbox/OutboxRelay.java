package dev.idempotency.outbox;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.idempotency.core.IdempotencyListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Sends committed outbox rows to their brokers, from context start to stop, on a daemon thread of
 * its own. Each round:
 * <ol>
 * <li>claims up to {@code batchSize} due rows in a short transaction ({@code FOR UPDATE SKIP
 * LOCKED}), leasing them for {@code lease}, so that relays on other instances take other rows;</li>
 * <li>sends them outside any transaction and waits for every broker acknowledgement, at most
 * {@code sendTimeout} for the whole batch;</li>
 * <li>marks the acknowledged rows {@code SENT}; a failed row gets another attempt after an
 * exponential back-off with jitter.</li>
 * </ol>
 * Only a failure its sender calls the message's ({@link OutboxSender#isMessageFailure}) counts as
 * an attempt: after {@code maxAttempts} of them (or at once when no sender serves its destination)
 * the row is marked {@code DEAD}. A failure of the broker or the network, and the relay's own
 * {@code sendTimeout}, never count: the row is due again after the back-off, which grows with each
 * round of its sender that failed that way and reached nothing (capped by the back-off's maximum),
 * and is reset by the first message that gets through. An outage of any length therefore leaves the
 * backlog {@code PENDING}, to drain once the broker is back; it is logged once per round.
 * Rounds follow each other at once while batches come back full, then every {@code pollInterval};
 * {@link #wakeUp()} (called by the outbox after a commit on this instance) starts one at once.
 * A relay that dies between the acknowledgement and the mark leaves its rows leased; once the lease
 * has passed, a relay sends them again with the same message id, which the consumers' dedup absorbs.
 *
 * @since 0.1.0
 */
public class OutboxRelay implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(OutboxRelay.class);

	/** Back-off steps are counted up to this; far beyond where any sensible back-off reaches its maximum. */
	private static final int MAX_BACK_OFF_STEPS = 64;

	private final JdbcOutboxRepository repository;

	private final Supplier<List<OutboxSender>> senders;

	private final Options options;

	private final Clock clock;

	private final Supplier<List<IdempotencyListener>> listeners;

	private volatile Consumer<List<OutboxMessage>> afterSend = (sent) -> {
	};

	private volatile boolean running;

	/** A round asked for by {@link #wakeUp()} is queued and has not started: more calls add nothing. */
	private final AtomicBoolean wakeUpQueued = new AtomicBoolean();

	private volatile boolean stopRequested;

	/** Per sender scheme: consecutive rounds whose sends all failed with the broker's or network's fault. */
	private final Map<String, Integer> outageRounds = new ConcurrentHashMap<>();

	private volatile @Nullable ScheduledExecutorService executor;

	/**
	 * Creates a relay.
	 * @param repository the outbox table
	 * @param senders the senders to choose from, by destination prefix
	 * @param options how the relay polls, leases and retries
	 * @param clock the clock of latencies and back-off
	 * @param listeners told of every sent, failed and dead message
	 */
	public OutboxRelay(JdbcOutboxRepository repository, Supplier<List<OutboxSender>> senders, Options options,
			Clock clock, Supplier<List<IdempotencyListener>> listeners) {
		this.repository = repository;
		this.senders = senders;
		this.options = options;
		this.clock = clock;
		this.listeners = listeners;
	}

	/**
	 * Claims and sends rows until a batch comes back short or the relay is stopped, on the calling
	 * thread.
	 * @return how many rows were claimed
	 */
	public int drain() {
		int total = 0;
		int claimed;
		do {
			claimed = runOnce();
			total += claimed;
		}
		while (claimed >= this.options.batchSize() && !this.stopRequested && !Thread.currentThread().isInterrupted());
		return total;
	}

	/**
	 * Claims one batch, sends it and records the outcome of every row, on the calling thread.
	 * @return how many rows were claimed
	 */
	public int runOnce() {
		List<OutboxMessage> batch = this.repository.claim(this.options.batchSize(), this.options.lease(),
				this.options.orderedPerKey());
		if (batch.isEmpty()) {
			return 0;
		}
		Map<OutboxMessage, CompletableFuture<?>> inFlight = new LinkedHashMap<>();
		Map<OutboxMessage, Throwable> failed = new LinkedHashMap<>();
		Map<OutboxMessage, OutboxSender> sentBy = new LinkedHashMap<>();
		Set<OutboxMessage> timedOut = new HashSet<>();
		Map<String, Throwable> unreachableDestinations = new HashMap<>();
		List<OutboxMessage> unroutable = new ArrayList<>();
		List<OutboxSender> available = this.senders.get();
		for (OutboxMessage message : batch) {
			Route route = route(available, message.destination());
			if (route == null) {
				unroutable.add(message);
				continue;
			}
			sentBy.put(message, route.sender());
			Throwable unreachable = unreachableDestinations.get(message.destination());
			if (unreachable != null) {
				// Each send would block as long again (Kafka's max.block.ms): try the next round.
				failed.put(message, unreachable);
				continue;
			}
			Throwable early;
			try {
				CompletableFuture<?> future = route.sender().send(route.target(), message);
				inFlight.put(message, future);
				early = failedAlready(future);
			}
			catch (RuntimeException ex) {
				failed.put(message, ex);
				early = ex;
			}
			if (early != null && !isMessageFailure(route.sender(), early)) {
				unreachableDestinations.put(message.destination(), early);
			}
		}
		List<OutboxMessage> sent = new ArrayList<>();
		Map<OutboxMessage, Instant> ackedAt = new LinkedHashMap<>();
		long deadline = System.nanoTime() + this.options.sendTimeout().toNanos();
		for (Map.Entry<OutboxMessage, CompletableFuture<?>> entry : inFlight.entrySet()) {
			try {
				entry.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				sent.add(entry.getKey());
				ackedAt.put(entry.getKey(), this.clock.instant());
			}
			catch (ExecutionException ex) {
				failed.put(entry.getKey(), (ex.getCause() != null) ? ex.getCause() : ex);
			}
			catch (TimeoutException ex) {
				entry.getValue().cancel(false);
				timedOut.add(entry.getKey());
				failed.put(entry.getKey(), new TimeoutException(
						"No acknowledgement within the send timeout of " + this.options.sendTimeout()));
			}
			catch (InterruptedException ex) {
				// Stopping: leave the rest leased; they are sent again once the lease has passed.
				Thread.currentThread().interrupt();
				break;
			}
		}
		this.afterSend.accept(List.copyOf(sent));
		this.repository.markSent(sent);
		for (OutboxMessage message : sent) {
			Duration latency = Duration.between(message.createdAt(), ackedAt.get(message));
			notify((listener) -> listener.onOutboxSent(message.destination(), latency.isNegative() ? Duration.ZERO
					: latency));
		}
		for (OutboxMessage message : unroutable) {
			dead(message, new IllegalStateException("No OutboxSender serves destination '" + message.destination()
					+ "' (senders: " + available.stream().map(OutboxSender::scheme).toList() + ")"));
		}
		Map<OutboxMessage, Throwable> messageFailures = new LinkedHashMap<>();
		Map<OutboxMessage, Throwable> outageFailures = new LinkedHashMap<>();
		// The relay's own send timeout is never the message's; otherwise its sender decides.
		failed.forEach((message, cause) -> ((!timedOut.contains(message)
				&& isMessageFailure(sentBy.get(message), cause)) ? messageFailures : outageFailures)
			.put(message, cause));
		updateOutageRounds(sentBy, sent, outageFailures);
		if (!messageFailures.isEmpty()) {
			Map.Entry<OutboxMessage, Throwable> first = messageFailures.entrySet().iterator().next();
			logger.warn("Outbox relay could not send " + messageFailures.size() + " of " + batch.size()
					+ " messages; they will be retried up to " + this.options.maxAttempts() + " attempts. First "
					+ "failure, message " + first.getKey().messageId() + " to '" + first.getKey().destination() + "': "
					+ describe(first.getValue()));
			messageFailures.forEach(this::failed);
		}
		if (!outageFailures.isEmpty()) {
			Map.Entry<OutboxMessage, Throwable> first = outageFailures.entrySet().iterator().next();
			logger.warn("Outbox relay could not reach the broker for " + outageFailures.size() + " of "
					+ batch.size() + " messages; they stay pending and are retried without counting an attempt. "
					+ "First failure, message " + first.getKey().messageId() + " to '" + first.getKey().destination()
					+ "': " + describe(first.getValue()));
			outageFailures.forEach((message, cause) -> rescheduled(message, sentBy.get(message), cause));
		}
		return batch.size();
	}

	/** The failure of a future that failed before {@code send} returned, else {@code null}. */
	private static @Nullable Throwable failedAlready(CompletableFuture<?> future) {
		if (!future.isCompletedExceptionally()) {
			return null;
		}
		try {
			future.getNow(null);
			return null;
		}
		catch (CompletionException ex) {
			return (ex.getCause() != null) ? ex.getCause() : ex;
		}
		catch (CancellationException ex) {
			return ex;
		}
	}

	private static boolean isMessageFailure(OutboxSender sender, Throwable cause) {
		try {
			return sender.isMessageFailure(cause);
		}
		catch (RuntimeException ex) {
			logger.warn("OutboxSender " + sender + " could not classify a failure; counting it as an attempt", ex);
			return true;
		}
	}

	/** A sender that got a message through ends its outage; one that reached nothing extends it. */
	private void updateOutageRounds(Map<OutboxMessage, OutboxSender> sentBy, List<OutboxMessage> sent,
			Map<OutboxMessage, Throwable> outageFailures) {
		sent.forEach((message) -> this.outageRounds.remove(sentBy.get(message).scheme()));
		outageFailures.keySet()
			.stream()
			.map((message) -> sentBy.get(message).scheme())
			.distinct()
			.filter((scheme) -> sent.stream().noneMatch((message) -> sentBy.get(message).scheme().equals(scheme)))
			.forEach((scheme) -> this.outageRounds.merge(scheme, 1, (rounds, one) -> Math.min(rounds + one,
					MAX_BACK_OFF_STEPS)));
	}

	private void failed(OutboxMessage message, Throwable cause) {
		int attempts = message.attempts() + 1;
		if (attempts >= this.options.maxAttempts()) {
			dead(message, cause);
			return;
		}
		Instant next = this.clock.instant().plusMillis(backOff(attempts));
		if (this.repository.markFailed(message, OutboxStatus.PENDING, next, describe(cause))) {
			notify((listener) -> listener.onOutboxSendFailed(message.destination(), cause));
		}
	}

	private void rescheduled(OutboxMessage message, OutboxSender sender, Throwable cause) {
		int steps = Math.min(MAX_BACK_OFF_STEPS,
				message.attempts() + Math.max(1, this.outageRounds.getOrDefault(sender.scheme(), 1)));
		Instant next = this.clock.instant().plusMillis(backOff(steps));
		if (this.repository.reschedule(message, next, describe(cause))) {
			notify((listener) -> listener.onOutboxSendFailed(message.destination(), cause));
		}
	}

	private void dead(OutboxMessage message, Throwable cause) {
		if (this.repository.markFailed(message, OutboxStatus.DEAD, this.clock.instant(), describe(cause))) {
			logger.warn("Outbox message " + message.messageId() + " to '" + message.destination() + "' is dead after "
					+ (message.attempts() + 1) + " attempts; fix the cause and re-drive it with OutboxAdmin. Last "
					+ "failure: " + describe(cause));
			notify((listener) -> listener.onOutboxDead(message.destination(), message.messageId(), cause));
		}
	}

	/** The back-off before attempt {@code failedAttempts + 1}, in milliseconds. */
	private long backOff(int failedAttempts) {
		BackOffExecution execution = this.options.backOff().start();
		long delay = 0;
		for (int i = 0; i < failedAttempts; i++) {
			long next = execution.nextBackOff();
			if (next == BackOffExecution.STOP) {
				break;
			}
			delay = next;
		}
		return delay;
	}

	private static @Nullable Route route(List<OutboxSender> senders, String destination) {
		int colon = destination.indexOf(':');
		if (colon > 0) {
			String scheme = destination.substring(0, colon);
			for (OutboxSender sender : senders) {
				if (sender.scheme().equals(scheme)) {
					return new Route(sender, destination.substring(colon + 1));
				}
			}
		}
		return (senders.size() == 1) ? new Route(senders.get(0), destination) : null;
	}

	private static String describe(Throwable cause) {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(cause);
		return root.getClass().getName() + ": " + root.getMessage();
	}

	private void notify(Consumer<IdempotencyListener> event) {
		for (IdempotencyListener listener : this.listeners.get()) {
			try {
				event.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("IdempotencyListener " + listener + " failed on an outbox event", ex);
			}
		}
	}

	/**
	 * Test hook: runs after the broker acknowledgements and before the rows are marked sent. An
	 * exception thrown here leaves the rows leased, as a relay that died at that moment would.
	 */
	void setAfterSend(Consumer<List<OutboxMessage>> afterSend) {
		this.afterSend = afterSend;
	}

	/**
	 * Starts a round now instead of at the next poll, on the relay's own thread; rounds never
	 * overlap, and calls made while one is already queued are merged into it. Does nothing while the
	 * relay is stopped. Rows committed on other instances still wait for the poll.
	 */
	public void wakeUp() {
		ScheduledExecutorService executor = this.executor;
		if (executor == null || !this.wakeUpQueued.compareAndSet(false, true)) {
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
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "idempotency-outbox-relay");
			thread.setDaemon(true);
			return thread;
		});
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
			// Let the batch in flight be acknowledged and marked, then interrupt.
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
	 */
	public record Options(Duration pollInterval, int batchSize, Duration lease, Duration sendTimeout, int maxAttempts,
			BackOff backOff, boolean orderedPerKey) {

		public Options {
			Assert.isTrue(pollInterval.toMillis() > 0, "pollInterval must be at least 1ms");
			Assert.isTrue(batchSize >= 1, "batchSize must be at least 1");
			Assert.isTrue(maxAttempts >= 1, "maxAttempts must be at least 1");
			Assert.isTrue(sendTimeout.toMillis() > 0, "sendTimeout must be positive");
			Assert.isTrue(lease.compareTo(sendTimeout) > 0,
					"lease must be longer than sendTimeout, or rows would be claimed again while being sent");
		}

	}

	private record Route(OutboxSender sender, String target) {

	}


}
