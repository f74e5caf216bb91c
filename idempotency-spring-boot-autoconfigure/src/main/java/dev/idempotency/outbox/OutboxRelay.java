package dev.idempotency.outbox;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
 * exponential back-off with jitter, and after {@code maxAttempts} failed attempts (or at once
 * when no sender serves its destination) it is marked {@code DEAD}.</li>
 * </ol>
 * Rounds follow each other at once while batches come back full, then every {@code pollInterval};
 * {@link #wakeUp()} (called by the outbox after a commit on this instance) starts one at once.
 * A relay that dies between the acknowledgement and the mark leaves its rows leased; once the lease
 * has passed, a relay sends them again with the same message id, which the consumers' dedup absorbs.
 *
 * @since 0.1.0
 */
public class OutboxRelay implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(OutboxRelay.class);

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
		List<OutboxMessage> unroutable = new ArrayList<>();
		List<OutboxSender> available = this.senders.get();
		for (OutboxMessage message : batch) {
			Route route = route(available, message.destination());
			if (route == null) {
				unroutable.add(message);
				continue;
			}
			try {
				inFlight.put(message, route.sender().send(route.target(), message));
			}
			catch (RuntimeException ex) {
				failed.put(message, ex);
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
		if (!failed.isEmpty()) {
			Map.Entry<OutboxMessage, Throwable> first = failed.entrySet().iterator().next();
			logger.warn("Outbox relay could not send " + failed.size() + " of " + batch.size()
					+ " messages; they will be retried. First failure, message " + first.getKey().messageId() + " to '"
					+ first.getKey().destination() + "': " + describe(first.getValue()));
			failed.forEach(this::failed);
		}
		return batch.size();
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
