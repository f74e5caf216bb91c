package dev.idempotency.outbox;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.idempotency.core.FailureClassifier;
import dev.idempotency.support.Listeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * The dispatch rounds of the relay, on the calling thread: claims a batch, sends every row through
 * its sender outside any transaction, waits for the broker acknowledgements (at most the send
 * timeout for the whole batch, counted from its claim), marks the acknowledged rows sent in one
 * statement, and hands every failure to the {@link OutboxRetryPolicy}. Listeners hear of every sent,
 * failed and dead row once its row changed.
 * <p>
 * {@link #drain} pipelines the rounds: while the acknowledgements of one batch are awaited, the
 * next batch is already claimed and sent (up to {@link OutboxRelay.Options#maxInFlightBatches()}
 * batches on their way). Batches are sent, awaited and marked in the order they were claimed, from
 * this one thread, so the sends of a later batch reach the sender after those of an earlier one.
 * The mark of a batch and the claim of the next one share a transaction, so a full batch costs one
 * commit. A commit on this instance during a drain ({@link CommitSignal}) keeps it claiming: the
 * rows it wrote are claimed beside the batches in flight, not after their acknowledgements and
 * marks. With per-key ordering, a row still in flight is unsent for the claim, so no batch holds a later
 * row of a key whose earlier row is on its way in another batch.
 */
final class OutboxDispatcher {

	// The relay's category: log levels users set for OutboxRelay keep applying.
	private static final Log logger = LogFactory.getLog(OutboxRelay.class);

	private final OutboxRepository repository;

	private final Supplier<List<OutboxSender>> senders;

	private final OutboxRelay.Options options;

	private final OutboxRetryPolicy retryPolicy;

	private final Clock clock;

	private final Supplier<List<OutboxListener>> listeners;

	OutboxDispatcher(OutboxRepository repository, Supplier<List<OutboxSender>> senders, OutboxRelay.Options options,
			Clock clock, Supplier<List<OutboxListener>> listeners, FailureClassifier classifier) {
		this.repository = repository;
		this.senders = senders;
		this.options = options;
		this.retryPolicy = new OutboxRetryPolicy(options.maxAttempts(), options.backOff(), clock, classifier);
		this.clock = clock;
		this.listeners = listeners;
	}

	/**
	 * Claims one batch, sends it and records the outcome of every row.
	 * @return how many rows were claimed
	 */
	int dispatch() {
		Round round = claimAndSend(Set.of());
		if (round == null) {
			return 0;
		}
		round.awaitAcknowledgements();
		complete(round, false);
		return round.batch.size();
	}

	/**
	 * Claims, sends and completes batches until a claim comes back short and no commit was noted
	 * since, or {@code stopRequested} says so, keeping up to {@code maxInFlightBatches} batches on
	 * their way: the next batch is claimed and sent while the acknowledgements of the earlier ones
	 * are awaited. Batches are completed (awaited, marked) in the order they were claimed; while more
	 * may be due, a batch is marked in the transaction that claims the next one
	 * ({@link OutboxRepository#markSentAndClaim}). A commit noted in {@code commits} counts as "more
	 * may be due" after a short claim, and ends the wait for the oldest batch's acknowledgements when
	 * another batch may go on its way: rows committed during a round are claimed at once, not after
	 * that round was acknowledged and marked.
	 * @param stopRequested whether to stop claiming; batches in flight are still completed
	 * @param commits commits on this instance since the last claim
	 * @return how many rows were claimed
	 */
	int drain(BooleanSupplier stopRequested, CommitSignal commits) {
		Deque<Round> inFlight = new ArrayDeque<>();
		// Ids of the rows handed to a sender by the batches in flight: a claim made after their lease
		// passed may return them again, and this relay must not send them a second time meanwhile.
		Set<Long> inFlightIds = new HashSet<>();
		int total = 0;
		// The first claim of a drain is unconditional: rows of other instances are found by polls.
		boolean more = true;
		// The first failed claim or mark: no more claims, the batches in flight are still completed.
		@Nullable RuntimeException failure = null;
		while (true) {
			boolean mayClaim = failure == null && !stopping(stopRequested);
			// The signal is taken (even when more is due anyway) right before the claim, which then sees
			// every commit noted so far.
			if (mayClaim && inFlight.size() < this.options.maxInFlightBatches() && (more | commits.take())) {
				Round round;
				try {
					round = claimAndSend(inFlightIds);
				}
				catch (RuntimeException ex) {
					// Still complete the batches in flight: their rows need not wait for the lease.
					failure = ex;
					round = null;
				}
				if (round == null) {
					more = false;
					continue;
				}
				total += round.batch.size();
				more = track(round, inFlight, inFlightIds);
				continue;
			}
			Round oldest = inFlight.peek();
			if (oldest == null) {
				if (failure != null) {
					throw failure;
				}
				return total;
			}
			if (mayClaim && inFlight.size() < this.options.maxInFlightBatches()) {
				// A commit while the oldest batch waits for the broker: claim its rows first.
				CompletableFuture<Void> answered = oldest.answered(commits);
				commits.awaitRaisedOr(answered, oldest.deadline);
				if (commits.isRaised() && !answered.isDone()) {
					continue;
				}
			}
			inFlight.poll();
			oldest.awaitAcknowledgements();
			oldest.sentBy.keySet().forEach((message) -> inFlightIds.remove(message.id()));
			if (mayClaim && !stopping(stopRequested) && (more | commits.take())) {
				// Its mark and the next claim in one transaction: one commit per batch instead of two.
				long deadline = System.nanoTime() + this.options.sendTimeout().toNanos();
				List<OutboxMessage> next;
				try {
					next = this.repository.markSentAndClaim(oldest.sent, this.options.batchSize(),
							this.options.lease(), this.options.orderedPerKey());
				}
				catch (RuntimeException ex) {
					// Nothing of it committed: mark the batch on its own, then finish what is in flight.
					failure = completeOrNote(oldest, false, ex);
					more = false;
					continue;
				}
				failure = completeOrNote(oldest, true, failure);
				Round round = send(next, inFlightIds, deadline);
				if (round == null) {
					more = false;
					continue;
				}
				total += round.batch.size();
				more = track(round, inFlight, inFlightIds);
				continue;
			}
			failure = completeOrNote(oldest, false, failure);
			if (Thread.currentThread().isInterrupted()) {
				// Stopping: the batches still in flight stay leased and are sent again once it has passed.
				return total;
			}
		}
	}

	/**
	 * Completes a batch; a failure to write its outcome (a mark that did not commit) is returned
	 * instead of thrown, or added to {@code failure}, so that the batches still in flight are
	 * completed too rather than left to their leases and sent again.
	 */
	private @Nullable RuntimeException completeOrNote(Round round, boolean marked,
			@Nullable RuntimeException failure) {
		try {
			complete(round, marked);
			return failure;
		}
		catch (RuntimeException ex) {
			if (failure == null) {
				return ex;
			}
			if (ex != failure) {
				failure.addSuppressed(ex);
			}
			return failure;
		}
	}

	/** Puts a sent round in flight; whether its batch came back full, so that more may be due. */
	private boolean track(Round round, Deque<Round> inFlight, Set<Long> inFlightIds) {
		inFlight.add(round);
		round.sentBy.keySet().forEach((message) -> inFlightIds.add(message.id()));
		return round.batch.size() >= this.options.batchSize();
	}

	private static boolean stopping(BooleanSupplier stopRequested) {
		return stopRequested.getAsBoolean() || Thread.currentThread().isInterrupted();
	}

	/**
	 * Claims a batch and starts sending every row of it that is not already in flight; {@code null}
	 * when nothing was due.
	 */
	private @Nullable Round claimAndSend(Set<Long> inFlightIds) {
		// Taken before the lease starts: the batch is answered within the send timeout of its claim,
		// so within its lease.
		long deadline = System.nanoTime() + this.options.sendTimeout().toNanos();
		List<OutboxMessage> batch = this.repository.claim(this.options.batchSize(), this.options.lease(),
				this.options.orderedPerKey());
		return send(batch, inFlightIds, deadline);
	}

	/**
	 * Starts sending every row of a claimed batch that is not already in flight; {@code null} when
	 * the batch is empty.
	 */
	private @Nullable Round send(List<OutboxMessage> batch, Set<Long> inFlightIds, long deadline) {
		if (batch.isEmpty()) {
			return null;
		}
		Round round = new Round(batch, new OutboxSenderRouter(this.senders.get()), deadline);
		for (OutboxMessage message : batch) {
			if (inFlightIds.contains(message.id())) {
				// Its earlier send is still to be answered; that answer marks it (SENT needs no lease).
				round.alreadyInFlight.add(message);
			}
			else {
				round.send(message);
			}
		}
		return round;
	}

	/**
	 * Marks the acknowledged rows sent in one statement (unless {@code marked}: they were, with the
	 * next claim) and hands every failure to the retry policy.
	 */
	private void complete(Round round, boolean marked) {
		List<OutboxMessage> batch = round.batch;
		if (!marked) {
			this.repository.markSent(round.sent);
		}
		for (OutboxMessage message : round.sent) {
			Duration latency = Duration.between(message.createdAt(), round.ackedAt.get(message));
			notify((listener) -> listener.onOutboxSent(message.destination(), latency.isNegative() ? Duration.ZERO
					: latency));
		}
		for (OutboxMessage message : round.unroutable) {
			dead(message, round.router.unroutable(message.destination()));
		}
		Map<OutboxMessage, Throwable> messageFailures = new LinkedHashMap<>();
		Map<OutboxMessage, Throwable> outageFailures = new LinkedHashMap<>();
		// The relay's own send timeout is never the message's; otherwise its sender decides.
		round.failed.forEach((message, cause) -> ((!round.timedOut.contains(message)
				&& this.retryPolicy.isMessageFailure(round.sentBy.get(message), cause)) ? messageFailures
						: outageFailures)
			.put(message, cause));
		this.retryPolicy.roundEnded(round.sentBy, round.sent, outageFailures.keySet());
		if (!messageFailures.isEmpty()) {
			Map.Entry<OutboxMessage, Throwable> first = messageFailures.entrySet().iterator().next();
			logger.warn("Outbox relay could not send " + messageFailures.size() + " of " + batch.size()
					+ " messages; they will be retried up to " + this.retryPolicy.maxAttempts() + " attempts. First "
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
			outageFailures.forEach((message, cause) -> rescheduled(message, round.sentBy.get(message), cause));
		}
		if (!round.alreadyInFlight.isEmpty()) {
			logger.warn("Outbox relay claimed " + round.alreadyInFlight.size() + " messages again that it was still "
					+ "sending (their lease of " + this.options.lease() + " passed first); they were not sent again");
		}
		if (!round.leaseExpired.isEmpty()) {
			logger.warn("Outbox relay did not send " + round.leaseExpired.size() + " of " + batch.size()
					+ " messages: their lease of " + this.options.lease() + " had passed before they could be sent "
					+ "(another relay may hold them now); they are sent once claimed again");
		}
	}

	private void failed(OutboxMessage message, Throwable cause) {
		if (this.retryPolicy.isLastAttempt(message)) {
			dead(message, cause);
			return;
		}
		Instant next = this.retryPolicy.nextAttempt(message);
		if (this.repository.markFailed(message, OutboxStatus.PENDING, next, describe(cause))) {
			notify((listener) -> listener.onOutboxSendFailed(message.destination(), cause));
		}
	}

	private void rescheduled(OutboxMessage message, OutboxSender sender, Throwable cause) {
		Instant next = this.retryPolicy.nextAttemptAfterOutage(message, sender);
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

	private static String describe(Throwable cause) {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(cause);
		return root.getClass().getName() + ": " + root.getMessage();
	}

	private void notify(Consumer<OutboxListener> event) {
		Listeners.notifyEach(this.listeners.get(), event, "an outbox event");
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

	/** The messages of one batch on their way: sent, in flight, failed or without a sender. */
	private final class Round {

		private final List<OutboxMessage> batch;

		private final OutboxSenderRouter router;

		/** When the acknowledgements of this batch are given up on ({@link System#nanoTime()}). */
		private final long deadline;

		private final Map<OutboxMessage, CompletableFuture<?>> inFlight = new LinkedHashMap<>();

		private final Map<OutboxMessage, Throwable> failed = new LinkedHashMap<>();

		private final Map<OutboxMessage, OutboxSender> sentBy = new LinkedHashMap<>();

		private final Set<OutboxMessage> timedOut = new HashSet<>();

		/** Destinations whose first send failed without the message's fault in this round. */
		private final Map<String, Throwable> unreachableDestinations = new HashMap<>();

		/** Rows not sent because their lease passed before their turn: they are left alone. */
		private final List<OutboxMessage> leaseExpired = new ArrayList<>();

		/** Rows claimed again while an earlier batch of this relay still has them on their way. */
		private final List<OutboxMessage> alreadyInFlight = new ArrayList<>();

		private final List<OutboxMessage> unroutable = new ArrayList<>();

		private final List<OutboxMessage> sent = new ArrayList<>();

		private final Map<OutboxMessage, Instant> ackedAt = new LinkedHashMap<>();

		/** Completes once every send of this batch was answered (acknowledged or failed). */
		private @Nullable CompletableFuture<Void> answered;

		CompletableFuture<Void> answered(CommitSignal commits) {
			CompletableFuture<Void> answered = this.answered;
			if (answered == null) {
				answered = commits.wakingOnCompletion(
						CompletableFuture.allOf(this.inFlight.values().toArray(CompletableFuture[]::new)));
				this.answered = answered;
			}
			return answered;
		}

		Round(List<OutboxMessage> batch, OutboxSenderRouter router, long deadline) {
			this.batch = batch;
			this.router = router;
			this.deadline = deadline;
		}

		void send(OutboxMessage message) {
			Instant claimedUntil = message.claimedUntil();
			if (claimedUntil != null && !OutboxDispatcher.this.clock.instant().isBefore(claimedUntil)) {
				// Another relay may have claimed it since: sending it too would be a second copy in flight.
				this.leaseExpired.add(message);
				return;
			}
			OutboxSenderRouter.Route route = this.router.route(message.destination());
			if (route == null) {
				this.unroutable.add(message);
				return;
			}
			this.sentBy.put(message, route.sender());
			Throwable unreachable = this.unreachableDestinations.get(message.destination());
			if (unreachable != null) {
				// Each send would block as long again (Kafka's max.block.ms): try the next round.
				this.failed.put(message, unreachable);
				return;
			}
			Throwable early;
			try {
				CompletableFuture<?> future = route.sender().send(route.target(), message);
				this.inFlight.put(message, future);
				early = failedAlready(future);
			}
			catch (RuntimeException ex) {
				this.failed.put(message, ex);
				early = ex;
			}
			if (early != null && !OutboxDispatcher.this.retryPolicy.isMessageFailure(route.sender(), early)) {
				this.unreachableDestinations.put(message.destination(), early);
			}
		}

		void awaitAcknowledgements() {
			Duration sendTimeout = OutboxDispatcher.this.options.sendTimeout();
			long deadline = this.deadline;
			for (Map.Entry<OutboxMessage, CompletableFuture<?>> entry : this.inFlight.entrySet()) {
				try {
					entry.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
					this.sent.add(entry.getKey());
					this.ackedAt.put(entry.getKey(), OutboxDispatcher.this.clock.instant());
				}
				catch (ExecutionException ex) {
					this.failed.put(entry.getKey(), (ex.getCause() != null) ? ex.getCause() : ex);
				}
				catch (TimeoutException ex) {
					entry.getValue().cancel(false);
					this.timedOut.add(entry.getKey());
					this.failed.put(entry.getKey(),
							new TimeoutException("No acknowledgement within the send timeout of " + sendTimeout));
				}
				catch (InterruptedException ex) {
					// Stopping: leave the rest leased; they are sent again once the lease has passed.
					Thread.currentThread().interrupt();
					break;
				}
			}
		}

	}

}
