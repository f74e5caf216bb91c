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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.OutboxListener;
import dev.idempotency.support.Listeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * One dispatch round of the relay, on the calling thread: claims a batch, sends every row through
 * its sender outside any transaction, waits for the broker acknowledgements (at most the send
 * timeout for the whole batch), marks the acknowledged rows sent, and hands every failure to the
 * {@link OutboxRetryPolicy}. Listeners hear of every sent, failed and dead row once its row changed.
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
		List<OutboxMessage> batch = this.repository.claim(this.options.batchSize(), this.options.lease(),
				this.options.orderedPerKey());
		if (batch.isEmpty()) {
			return 0;
		}
		Round round = new Round(new OutboxSenderRouter(this.senders.get()));
		batch.forEach(round::send);
		round.awaitAcknowledgements();
		this.repository.markSent(round.sent);
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
		return batch.size();
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

		private final OutboxSenderRouter router;

		private final Map<OutboxMessage, CompletableFuture<?>> inFlight = new LinkedHashMap<>();

		private final Map<OutboxMessage, Throwable> failed = new LinkedHashMap<>();

		private final Map<OutboxMessage, OutboxSender> sentBy = new LinkedHashMap<>();

		private final Set<OutboxMessage> timedOut = new HashSet<>();

		/** Destinations whose first send failed without the message's fault in this round. */
		private final Map<String, Throwable> unreachableDestinations = new HashMap<>();

		private final List<OutboxMessage> unroutable = new ArrayList<>();

		private final List<OutboxMessage> sent = new ArrayList<>();

		private final Map<OutboxMessage, Instant> ackedAt = new LinkedHashMap<>();

		Round(OutboxSenderRouter router) {
			this.router = router;
		}

		void send(OutboxMessage message) {
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
			long deadline = System.nanoTime() + sendTimeout.toNanos();
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
