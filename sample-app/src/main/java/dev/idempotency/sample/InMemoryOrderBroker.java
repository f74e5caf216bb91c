package dev.idempotency.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

/**
 * A tiny in-process broker with at-least-once delivery: a stand-in for Kafka until the library's
 * Kafka adapter lands, doing for each delivery what that adapter's record interceptor does.
 * <ul>
 * <li>Messages are spread over partitions by the user id (as Kafka spreads records by key); each
 * partition has one consumer thread, so one user's orders are delivered in order.</li>
 * <li>Before each delivery the consumer binds a {@link DeliveryContext} (message id, consumer
 * group, acknowledger) to its thread, and clears it in {@code finally}.</li>
 * <li>The acknowledger is what the interceptor calls after commit; the broker only counts the
 * acknowledgements. A delivery that returns without one is counted as unacknowledged: a real
 * broker would deliver it again after a restart or a rebalance.</li>
 * <li>A listener exception means "not processed": the message is delivered again, up to
 * {@code maxAttempts} times, then dead-lettered. Exceptions of a not-retryable type (a message
 * without a key) are dead-lettered at once.</li>
 * </ul>
 */
public class InMemoryOrderBroker implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(InMemoryOrderBroker.class);

	private final String group;

	private final int maxAttempts;

	private final Consumer<OrderPlaced> listener;

	private final List<Class<? extends Throwable>> notRetryable;

	private final List<BlockingQueue<Message>> partitions = new ArrayList<>();

	private final List<Thread> consumers = new ArrayList<>();

	private final List<DeadLetter> deadLetters = new CopyOnWriteArrayList<>();

	private final AtomicLong published = new AtomicLong();

	private final AtomicLong deliveries = new AtomicLong();

	private final AtomicLong acknowledged = new AtomicLong();

	private final AtomicLong unacknowledged = new AtomicLong();

	private final Object idle = new Object();

	private long pending;

	private volatile boolean running;

	/**
	 * Creates a broker with one subscriber.
	 * @param group the consumer group, passed on as the delivery's default namespace
	 * @param partitions partitions and consumer threads
	 * @param maxAttempts deliveries of a message before it is dead-lettered
	 * @param listener the subscriber
	 * @param notRetryable exception types that dead-letter a message at the first failure
	 */
	@SafeVarargs
	public InMemoryOrderBroker(String group, int partitions, int maxAttempts, Consumer<OrderPlaced> listener,
			Class<? extends Throwable>... notRetryable) {
		if (partitions < 1 || maxAttempts < 1) {
			throw new IllegalArgumentException("partitions and maxAttempts must be positive");
		}
		this.group = group;
		this.maxAttempts = maxAttempts;
		this.listener = listener;
		this.notRetryable = List.of(notRetryable);
		for (int i = 0; i < partitions; i++) {
			this.partitions.add(new LinkedBlockingQueue<>());
		}
	}

	/**
	 * Publishes an order under a new message id; a producer retry is a second call.
	 * @param order the event
	 * @return the message id
	 */
	public String send(OrderPlaced order) {
		String messageId = UUID.randomUUID().toString();
		synchronized (this.idle) {
			this.pending++;
		}
		this.published.incrementAndGet();
		this.partitions.get(Math.floorMod(order.userId().hashCode(), this.partitions.size()))
			.add(new Message(messageId, order));
		return messageId;
	}

	/**
	 * Waits until every published message was acknowledged, left unacknowledged or dead-lettered.
	 * @param timeout how long to wait
	 * @throws IllegalStateException if messages are still pending after the timeout
	 */
	public void awaitIdle(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.idle) {
			while (this.pending > 0) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					throw new IllegalStateException(this.pending + " messages still pending after " + timeout);
				}
				TimeUnit.NANOSECONDS.timedWait(this.idle, left);
			}
		}
	}

	private void consume(BlockingQueue<Message> partition) {
		while (this.running) {
			Message message;
			try {
				message = partition.poll(100, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			if (message != null) {
				try {
					deliver(message);
				}
				finally {
					synchronized (this.idle) {
						this.pending--;
						this.idle.notifyAll();
					}
				}
			}
		}
	}

	private void deliver(Message message) {
		for (int attempt = 1;; attempt++) {
			this.deliveries.incrementAndGet();
			AtomicBoolean acked = new AtomicBoolean();
			DeliveryContextHolder.set(new DeliveryContext(message.id(), this.group, Map.of(), () -> {
				if (acked.compareAndSet(false, true)) {
					this.acknowledged.incrementAndGet();
				}
			}));
			try {
				this.listener.accept(message.order());
				if (!acked.get()) {
					this.unacknowledged.incrementAndGet();
				}
				return;
			}
			catch (RuntimeException ex) {
				boolean retryable = this.notRetryable.stream().noneMatch((type) -> type.isInstance(ex));
				if (!retryable || attempt >= this.maxAttempts) {
					this.deadLetters.add(new DeadLetter(message.id(), message.order(), attempt, ex.toString()));
					logger.warn("Dead-lettered " + message.order() + " after " + attempt + " attempt(s): " + ex);
					return;
				}
				if (logger.isDebugEnabled()) {
					logger.debug("Attempt " + attempt + " of " + message.order() + " failed, redelivering: " + ex);
				}
			}
			finally {
				DeliveryContextHolder.clear();
			}
		}
	}

	@Override
	public void start() {
		this.running = true;
		for (int i = 0; i < this.partitions.size(); i++) {
			BlockingQueue<Message> partition = this.partitions.get(i);
			Thread consumer = new Thread(() -> consume(partition), this.group + "-consumer-" + i);
			this.consumers.add(consumer);
			consumer.start();
		}
	}

	@Override
	public void stop() {
		this.running = false;
		for (Thread consumer : this.consumers) {
			try {
				consumer.join(5_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
		this.consumers.clear();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Messages published, producer re-sends included. */
	public long published() {
		return this.published.get();
	}

	/** Deliveries to the listener, redeliveries included. */
	public long deliveries() {
		return this.deliveries.get();
	}

	/** Deliveries the listener acknowledged. */
	public long acknowledged() {
		return this.acknowledged.get();
	}

	/** Deliveries the listener returned from without acknowledging. */
	public long unacknowledged() {
		return this.unacknowledged.get();
	}

	/** Messages given up on, in the order they were dead-lettered. */
	public List<DeadLetter> deadLetters() {
		return List.copyOf(this.deadLetters);
	}

	private record Message(String id, OrderPlaced order) {
	}

	/**
	 * A message that was not processed.
	 * @param messageId its message id
	 * @param order its payload
	 * @param attempts how often it was delivered
	 * @param cause the last failure
	 */
	public record DeadLetter(String messageId, OrderPlaced order, int attempts, String cause) {
	}

}
