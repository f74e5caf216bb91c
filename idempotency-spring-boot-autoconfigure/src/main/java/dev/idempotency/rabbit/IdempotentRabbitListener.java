package dev.idempotency.rabbit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import com.rabbitmq.client.Channel;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.support.FailClosedCircuit;
import dev.idempotency.support.FailClosedCircuits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;
import org.springframework.core.NestedExceptionUtils;

/**
 * Stands between a listener container in manual acknowledgement and its {@code @RabbitListener}
 * adapter, for one delivery at a time on the consumer's thread:
 * <ol>
 * <li>binds the {@link RabbitDeliveryContexts delivery context}, with a {@link RabbitAcknowledger}
 * that the interceptor calls after the commit, and calls the adapter (which converts the payload and
 * invokes the method);</li>
 * <li>acknowledges the delivery if nobody did (a listener method without {@code @Idempotent}, or a
 * {@code @RabbitHandler} of the class that has none);</li>
 * <li>on a failure: holds the delivery through an infrastructure outage ({@link FailClosedCircuits}),
 * waits while its key is in progress elsewhere, retries it in place with back-off, or dead-letters it
 * ({@link RabbitFailurePolicy}, {@link RabbitDeadLetters}). Every path settles the delivery, except
 * a failed acknowledgement or a closed channel: the broker then redelivers it, and the redelivery
 * finds the key committed.</li>
 * </ol>
 * A delivery held or waiting when the container stops is handed back to the broker (requeued).
 *
 * @since 0.2.0
 */
public final class IdempotentRabbitListener implements ChannelAwareMessageListener {

	private static final Log logger = LogFactory.getLog(IdempotentRabbitListener.class);

	private static final long SLICE_MILLIS = 100;

	private final ChannelAwareMessageListener delegate;

	private final String listenerId;

	private final BooleanSupplier running;

	private final RabbitDeliveryContexts contexts;

	private final RabbitFailurePolicy policy;

	private final RabbitDeadLetters deadLetters;

	private final @Nullable FailClosedCircuits circuits;

	/**
	 * Wraps a container's listener.
	 * @param delegate the container's listener (Spring AMQP's {@code @RabbitListener} adapter)
	 * @param listenerId the container's id: the fail-closed circuit's name
	 * @param running whether the container runs; holds and back-offs end when it stops
	 * @param contexts describes deliveries
	 * @param policy the retry and dead-letter decisions
	 * @param deadLetters gives deliveries up
	 * @param circuits fail-closed, or {@code null} when it is off
	 */
	public IdempotentRabbitListener(ChannelAwareMessageListener delegate, String listenerId, BooleanSupplier running,
			RabbitDeliveryContexts contexts, RabbitFailurePolicy policy, RabbitDeadLetters deadLetters,
			@Nullable FailClosedCircuits circuits) {
		this.delegate = delegate;
		this.listenerId = listenerId;
		this.running = running;
		this.contexts = contexts;
		this.policy = policy;
		this.deadLetters = deadLetters;
		this.circuits = circuits;
	}

	/**
	 * The listener this one wraps.
	 * @return the container's original listener
	 */
	public ChannelAwareMessageListener getDelegate() {
		return this.delegate;
	}

	@Override
	public void onMessage(Message message, Channel channel) throws Exception {
		RabbitAcknowledger acknowledger = new RabbitAcknowledger(channel,
				message.getMessageProperties().getDeliveryTag());
		int attempts = this.policy.attemptsOf(message);
		int attempt = 1;
		while (true) {
			Throwable failure = invoke(message, channel, acknowledger);
			if (failure == null) {
				gotThrough();
				return;
			}
			if (!acknowledger.isInHand()) {
				// Settled already, or its channel is gone: the broker redelivers it if it was not
				// acknowledged, and the redelivery is found a duplicate. Nothing is left to decide here.
				throw asException(failure);
			}
			IdempotencyInProgressException inProgress = RabbitFailurePolicy.inProgress(failure);
			if (inProgress != null) {
				if (!pause(RabbitFailurePolicy.inProgressInterval(inProgress), acknowledger)) {
					acknowledger.requeue();
					return;
				}
				continue;
			}
			if (this.circuits != null && this.circuits.isInfrastructure(failure)) {
				if (!holdUntilRecovered(failure, acknowledger)) {
					acknowledger.requeue();
					return;
				}
				continue;
			}
			gotThrough();
			String reason = this.policy.notRetryableReason(failure);
			if (reason != null || attempt >= attempts) {
				giveUp(message, acknowledger, failure, (reason != null) ? reason : "attempts-exhausted", attempt);
				return;
			}
			Duration backOff = this.policy.backOffAfter(attempt);
			logger.warn("Message " + describe(message) + " failed (attempt " + attempt + " of " + attempts
					+ "); retried in " + backOff.toMillis() + " ms: "
					+ NestedExceptionUtils.getMostSpecificCause(failure));
			if (!pause(backOff, acknowledger)) {
				acknowledger.requeue();
				return;
			}
			attempt++;
		}
	}

	private @Nullable Throwable invoke(Message message, Channel channel, RabbitAcknowledger acknowledger) {
		DeliveryContextHolder.set(this.contexts.of(message, acknowledger));
		try {
			this.delegate.onMessage(message, channel);
			if (!acknowledger.isAcknowledged()) {
				acknowledger.acknowledge();
			}
			return null;
		}
		catch (Throwable ex) {
			if (ex instanceof Error error && !(ex instanceof AssertionError)) {
				throw error;
			}
			return ex;
		}
		finally {
			DeliveryContextHolder.clear();
		}
	}

	private void giveUp(Message message, RabbitAcknowledger acknowledger, Throwable failure, String reason,
			int attempt) {
		try {
			this.deadLetters.deadLetter(message, acknowledger, failure, reason, attempt);
		}
		catch (RabbitDeadLetters.UnroutableDeadLetterException ex) {
			logger.error("Could not dead-letter message " + describe(message) + ": " + ex.getMessage()
					+ "; rejecting it to the queue's own dead-letter exchange instead", failure);
			rejectQuietly(acknowledger);
		}
		catch (AmqpException ex) {
			// The broker did not take the dead letter: hand the message back; it fails again on its
			// next delivery, after its attempts and back-off, and is dead-lettered then.
			logger.error("Could not dead-letter message " + describe(message) + "; it is requeued", ex);
			acknowledger.requeue();
		}
	}

	private static void rejectQuietly(RabbitAcknowledger acknowledger) {
		try {
			acknowledger.rejectToDeadLetterExchange();
		}
		catch (AmqpException ex) {
			logger.debug("Could not reject the message: its channel closed, the broker redelivers it", ex);
		}
	}

	/**
	 * Pauses the listener after an infrastructure failure and waits, as long as the container runs
	 * and the delivery's channel is open, until the stores answer.
	 */
	private boolean holdUntilRecovered(Throwable failure, RabbitAcknowledger delivery) {
		FailClosedCircuit circuit = circuit();
		circuit.open(failure);
		BooleanSupplier keepWaiting = () -> this.running.getAsBoolean() && delivery.isInHand();
		// No give-up after max-wait: an AMQP consumer has no poll deadline, so it waits as long as the
		// container runs. An interrupted thread stops waiting (its sleeps would not wait).
		while (keepWaiting.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
			if (circuit.awaitRecovery(keepWaiting, () -> {
			})) {
				return true;
			}
		}
		return false;
	}

	/** A delivery got through to the infrastructure: resumes the listener if it was paused. */
	private void gotThrough() {
		if (this.circuits != null) {
			FailClosedCircuit circuit = this.circuits.circuits().get(this.listenerId);
			if (circuit != null) {
				circuit.close();
			}
		}
	}

	private FailClosedCircuit circuit() {
		if (this.circuits == null) {
			throw new IllegalStateException("Fail-closed is disabled");
		}
		return this.circuits.circuit(this.listenerId);
	}

	/** Sleeps in slices while the container runs and the delivery is in hand; {@code false} if not. */
	private boolean pause(Duration duration, RabbitAcknowledger delivery) {
		long end = System.nanoTime() + duration.toNanos();
		try {
			while (this.running.getAsBoolean() && delivery.isInHand()) {
				long left = end - System.nanoTime();
				if (left <= 0) {
					return true;
				}
				Thread.sleep(Math.min(SLICE_MILLIS, Math.max(1, left / 1_000_000)));
			}
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static Exception asException(Throwable failure) {
		return (failure instanceof Exception exception) ? exception : new IllegalStateException(failure);
	}

	private static String describe(Message message) {
		String id = message.getMessageProperties().getMessageId();
		return ((id != null) ? "'" + id + "'" : "#" + message.getMessageProperties().getDeliveryTag()) + " of queue '"
				+ message.getMessageProperties().getConsumerQueue() + "'";
	}

	@Override
	public void containerAckMode(AcknowledgeMode mode) {
		this.delegate.containerAckMode(mode);
	}

	@Override
	public boolean isAsyncReplies() {
		return this.delegate.isAsyncReplies();
	}

}
