package dev.idempotency.redis.stream;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryListener;
import dev.idempotency.support.DaemonSchedulers;
import dev.idempotency.support.FailClosedCircuits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Runs one {@link RedisStreamListener} method: each of its consumers reads the stream on a connection
 * of its own ({@link StreamReadLoop}) with manual acknowledgement, and a recovery task measures,
 * claims and dead-letters pending entries.
 * <ul>
 * <li>At start the consumer group is created if missing (XGROUP CREATE ... 0 MKSTREAM), and each
 * consumer first reads its own pending entries (XPENDING, then XCLAIM one at a time) before new
 * ones ({@code >}).</li>
 * <li>Each entry is bound to the thread as the {@link DeliveryContext} (message id: the
 * {@value DeliveryContext#MESSAGE_ID_HEADER} field, else {@code ~redis-stream:<stream>:<record id>};
 * namespace: the group; SpEL variables {@code #record}, {@code #headers} (the fields),
 * {@code #recordId}, {@code #stream}) with a {@link RedisStreamAcknowledger}. An {@code @Idempotent} method acknowledges
 * after commit; any other method is acknowledged when it returns. The entries of one read that are
 * done are acknowledged together, with one XACK after the read's last entry; a failed entry is
 * never among them.</li>
 * <li>A method that throws leaves the entry pending. A payload that cannot be converted, a missing
 * key and {@code onDuplicate = THROW} are not retryable: the entry is dead-lettered at once. An entry
 * whose key is in progress elsewhere stays pending without using up a delivery.</li>
 * <li>Read errors never cancel the subscription: the consumer pauses for the recovery back-off and
 * reads again; a missing group (NOGROUP) is recreated, logged and counted.</li>
 * <li>Every claim interval, once every consumer has read its own pending entries: entries pending
 * longer than min-idle are claimed (XAUTOCLAIM) and delivered again; entries delivered more than
 * max-deliveries times are written to the dead-letter stream and then acknowledged; entries
 * trimmed from the stream are acknowledged and counted.</li>
 * <li>Entries a consumer holds (its current read's entries until they are acknowledged, or the pending
 * entry being delivered) are kept fresh every quarter of min-idle (XCLAIM ... JUSTID, which counts no
 * delivery), so that a slow delivery, or entries waiting behind it, are not claimed by another consumer
 * meanwhile ({@link InFlightEntries}). A stopped or dead consumer keeps nothing fresh.</li>
 * <li>With transaction batching on ({@link RedisStreamSettings#transactionBatching()}), the entries of
 * one read of a record-style {@code @Idempotent} method run in one transaction and are acknowledged
 * after its commit; a read whose batch does not commit is delivered entry by entry
 * ({@link TransactionBatchingReads}).</li>
 * <li>With {@link FailClosedCircuits} (fail-closed on), a delivery or read that fails on the
 * infrastructure pauses the listener (circuit {@code <stream>/<group>}): the entry is held and
 * retried in place once the stores and Redis answer, never counted as a delivery nor
 * dead-lettered, and the recovery claims nothing while the circuit is open
 * ({@link StreamFailClosed}).</li>
 * </ul>
 * This class owns the lifecycle: threads, start and stop, the recovery schedule. The work is done by
 * its collaborators, which share one {@link StreamBinding}; every entry, however it was read, takes
 * one way: a subscription ({@link StreamConsumers}) or {@link PendingEntryRecovery} (run by
 * {@link StreamRecoveryRun}) →
 * {@link StreamEntryDispatcher} ({@link StreamArgumentResolver}, {@link RedisStreamDeliveryContext},
 * the method, XACK) → on failure {@link StreamFailurePolicy} → {@link DeadLetterStream}.
 * {@link ConsumerGroups} creates and recreates the group.
 *
 * @since 0.1.0
 */
public class RedisStreamListenerContainer {

	/** Field of a dead-letter entry: the exception class and message of the last failure. */
	public static final String DLQ_ERROR_FIELD = DeadLetterStream.ERROR_FIELD;

	/** Field of a dead-letter entry: the stream the entry came from. */
	public static final String DLQ_SOURCE_FIELD = DeadLetterStream.SOURCE_FIELD;

	/** Field of a dead-letter entry: the entry's record id in its source stream. */
	public static final String DLQ_ID_FIELD = DeadLetterStream.ID_FIELD;

	/** Field of a dead-letter entry: the consumer group that gave it up. */
	public static final String DLQ_GROUP_FIELD = DeadLetterStream.GROUP_FIELD;

	/** Field of a dead-letter entry: how often it had been delivered. */
	public static final String DLQ_DELIVERY_COUNT_FIELD = DeadLetterStream.DELIVERY_COUNT_FIELD;

	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private final RedisStreamListenerEndpoint endpoint;

	private final RedisStreamSettings settings;

	private final StreamBinding binding;

	private final ConsumerGroups groups;

	private final PendingEntryRecovery pending;

	private final StreamConsumers consumers;

	private final StreamRecoveryRun recoveryRun;

	private final InFlightEntries inFlight;

	private final CountingExecutor tasks;

	private final Object lifecycleMonitor = new Object();

	private volatile boolean running;

	/** The current run: a consumer started for an earlier run does not subscribe. */
	private @Nullable Object generation;

	private @Nullable ScheduledExecutorService recovery;

	private @Nullable ScheduledExecutorService inFlightRefresh;

	/**
	 * Creates a container; {@link #start()} starts it.
	 * @param endpoint the listener method
	 * @param settings reading, recovery and dead-letter settings
	 * @param connectionFactory the Redis to read from (and, in redis-atomic mode, of the store)
	 * @param payloadConverter converts payloads to parameter types other than records and strings, or
	 * {@code null} when none is available
	 * @param listeners told about dead letters and, those that are {@link StreamConsumerListener}s,
	 * about claims, trimmed entries and group recreations
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link
	 * #RedisStreamListenerContainer(RedisStreamListenerEndpoint, RedisStreamSettings, RedisConnectionFactory,
	 * RedisStreamPayloadConverter, Supplier, FailClosedCircuits)} with {@code null} circuits
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public RedisStreamListenerContainer(RedisStreamListenerEndpoint endpoint, RedisStreamSettings settings,
			RedisConnectionFactory connectionFactory, @Nullable RedisStreamPayloadConverter payloadConverter,
			Supplier<List<DeliveryListener>> listeners) {
		this(endpoint, settings, connectionFactory, payloadConverter, listeners, null);
	}

	/**
	 * Creates a container; {@link #start()} starts it.
	 * @param endpoint the listener method
	 * @param settings reading, recovery and dead-letter settings
	 * @param connectionFactory the Redis to read from (and, in redis-atomic mode, of the store)
	 * @param payloadConverter converts payloads to parameter types other than records and strings, or
	 * {@code null} when none is available
	 * @param listeners told about dead letters and, those that are {@link StreamConsumerListener}s,
	 * about claims, trimmed entries and group recreations
	 * @param circuits pause the listener on infrastructure failures, or {@code null} for fail-closed
	 * off (every failure counts towards max-deliveries)
	 * @since 0.2.0
	 */
	public RedisStreamListenerContainer(RedisStreamListenerEndpoint endpoint, RedisStreamSettings settings,
			RedisConnectionFactory connectionFactory, @Nullable RedisStreamPayloadConverter payloadConverter,
			Supplier<List<DeliveryListener>> listeners, @Nullable FailClosedCircuits circuits) {
		this.endpoint = endpoint;
		this.settings = settings;
		this.binding = new StreamBinding(endpoint.stream(), endpoint.group(), listeners);
		StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
		int concurrency = (endpoint.concurrency() != null) ? endpoint.concurrency() : settings.concurrency();
		String base = (endpoint.consumer() != null) ? endpoint.consumer() : ConsumerNames.unique();
		List<String> names = StreamConsumers.names(base, concurrency);
		StreamFailClosed failClosed = new StreamFailClosed(circuits, redis, this.binding, names, this::isRunning);
		this.tasks = new CountingExecutor(new SimpleAsyncTaskExecutor("redis-stream-" + endpoint.id() + "-"));
		this.groups = new ConsumerGroups(redis, this.binding);
		StreamFailurePolicy failures = new StreamFailurePolicy(redis, this.binding,
				new DeadLetterStream(redis, this.binding, settings.deadLetterSuffix()), settings);
		StreamArgumentResolver arguments = new StreamArgumentResolver(endpoint.method(), settings.payloadField(),
				payloadConverter);
		StreamEntryDispatcher dispatcher = new StreamEntryDispatcher(redis, this.binding, endpoint, arguments, failures,
				failClosed, settings.transactionBatching()
						? TransactionBatchingReads.of(this.binding, endpoint, arguments) : null);
		this.inFlight = new InFlightEntries(redis, this.binding, settings.minIdle());
		this.pending = new PendingEntryRecovery(redis, this.binding, settings, dispatcher, this.inFlight,
				this::isRunning);
		this.consumers = new StreamConsumers(names, this.binding, settings, this.groups, connectionFactory, this.tasks,
				dispatcher, failClosed, this.inFlight, this::isRunning);
		this.recoveryRun = new StreamRecoveryRun(this.binding, settings, this.consumers, this.pending, failClosed,
				() -> {
					synchronized (this.lifecycleMonitor) {
						if (this.running) {
							this.consumers.resubscribeEnded();
						}
					}
				}, this::isRunning);
	}

	public RedisStreamListenerEndpoint getEndpoint() {
		return this.endpoint;
	}

	/**
	 * The consumer names this container reads as.
	 * @return one name per consumer
	 */
	public List<String> getConsumerNames() {
		return this.consumers.names();
	}

	public boolean isRunning() {
		return this.running;
	}

	/**
	 * How many of this container's subscriptions are reading: Redis answered their last read
	 * ({@code XREADGROUP}) and no read failed since. A subscription that has not read yet, or is
	 * reconnecting or waiting for Redis after a failed read, is not counted, however long that takes.
	 * @return the number of healthy subscriptions
	 */
	public int getActiveSubscriptions() {
		return this.consumers.active();
	}

	/**
	 * Creates the group if needed and starts the consumers (each first reads its own pending entries)
	 * and the recovery task. Returns at once; reading happens on the container's threads.
	 */
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			this.running = true;
			Object generation = new Object();
			this.generation = generation;
			for (StreamConsumers.Member consumer : this.consumers.members()) {
				this.tasks.execute(() -> startConsumer(generation, consumer));
			}
			ScheduledExecutorService recovery = DaemonSchedulers
				.singleThread("redis-stream-recovery-" + this.endpoint.id());
			long interval = this.settings.claimInterval().toMillis();
			recovery.scheduleWithFixedDelay(this.recoveryRun, interval, interval, TimeUnit.MILLISECONDS);
			this.recovery = recovery;
			// Its own thread: the recovery's may be busy delivering a claimed entry for a long time.
			ScheduledExecutorService inFlightRefresh = DaemonSchedulers
				.singleThread("redis-stream-in-flight-" + this.endpoint.id());
			long period = this.inFlight.period().toNanos();
			inFlightRefresh.scheduleWithFixedDelay(this.inFlight::refresh, period, period, TimeUnit.NANOSECONDS);
			this.inFlightRefresh = inFlightRefresh;
		}
	}

	/**
	 * Stops reading and claiming, and waits (at most the poll timeout and a few seconds) for the
	 * deliveries in progress to finish. Entries read but not processed stay pending, as do entries
	 * held through an outage (their delivery counter set back); they are no longer kept fresh, and
	 * another consumer claims them after min-idle.
	 */
	public void stop() {
		ScheduledExecutorService recovery;
		ScheduledExecutorService inFlightRefresh;
		synchronized (this.lifecycleMonitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			recovery = this.recovery;
			inFlightRefresh = this.inFlightRefresh;
			this.inFlightRefresh = null;
			this.generation = null;
			this.consumers.cancel();
			if (recovery != null) {
				recovery.shutdown();
			}
		}
		long deadline = System.nanoTime() + this.settings.pollTimeout().plusSeconds(5).toNanos();
		try {
			while (this.tasks.active() > 0 && System.nanoTime() < deadline) {
				Thread.sleep(10);
			}
			if (recovery != null) {
				recovery.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		// Only now: a delivery still finishing keeps its entry fresh until it is done. The entries a
		// stopped consumer read and did not deliver are released by its loop, and claimed after min-idle.
		if (inFlightRefresh != null) {
			inFlightRefresh.shutdownNow();
		}
		this.consumers.reset();
		this.consumers.report();
	}

	private void startConsumer(Object generation, StreamConsumers.Member consumer) {
		try {
			this.groups.create();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not create consumer group '" + this.binding.group() + "' of stream '"
					+ this.binding.stream() + "'; the consumer retries when it reads", ex);
		}
		try {
			this.pending.readOwnPending(consumer.name());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not read the pending entries of consumer '" + consumer.name() + "' of stream '"
					+ this.binding.stream() + "'; they are claimed after min-idle", ex);
		}
		finally {
			consumer.ownPendingRead();
		}
		synchronized (this.lifecycleMonitor) {
			if (this.running && this.generation == generation) {
				this.consumers.subscribe(consumer);
			}
		}
		this.consumers.report();
	}

	/**
	 * Describes one entry as the delivery context.
	 * @param record the entry
	 * @param group the consumer group (the default namespace)
	 * @param acknowledger acknowledges the entry
	 * @return the delivery context
	 */
	public static DeliveryContext deliveryOf(MapRecord<String, String, String> record, String group,
			RedisStreamAcknowledger acknowledger) {
		return RedisStreamDeliveryContext.of(record, group, acknowledger);
	}

	/**
	 * The entry's message id: the {@value DeliveryContext#MESSAGE_ID_HEADER} field (written by the
	 * outbox relay) if present and not empty, else {@code ~redis-stream:<stream>:<record id>}, which
	 * identifies an entry but not a producer's re-send; a field that starts with {@code ~} gets a
	 * second one ({@link dev.idempotency.core.MessageIds}).
	 * @param record the entry
	 * @return the message id
	 */
	public static String messageId(MapRecord<String, String, String> record) {
		return RedisStreamDeliveryContext.messageId(record);
	}

}
