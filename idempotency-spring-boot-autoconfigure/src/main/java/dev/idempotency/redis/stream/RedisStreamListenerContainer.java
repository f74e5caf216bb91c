package dev.idempotency.redis.stream;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.NonRetryableIdempotencyException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStreamCommands.XClaimOptions;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ObjectRecord;
import org.springframework.data.redis.connection.stream.PendingMessage;
import org.springframework.data.redis.connection.stream.PendingMessagesSummary;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.StringRedisSerializer;
import org.springframework.data.redis.stream.StreamMessageListenerContainer;
import org.springframework.data.redis.stream.StreamMessageListenerContainer.StreamMessageListenerContainerOptions;
import org.springframework.data.redis.stream.StreamMessageListenerContainer.StreamReadRequest;
import org.springframework.data.redis.stream.Subscription;
import org.springframework.util.ReflectionUtils;

/**
 * Runs one {@link RedisStreamListener} method: its consumers read the stream through a
 * {@link StreamMessageListenerContainer} with manual acknowledgement, and a recovery task measures,
 * claims and dead-letters pending entries.
 * <ul>
 * <li>At start the consumer group is created if missing (XGROUP CREATE ... 0 MKSTREAM), and each
 * consumer first reads its own pending entries (XREADGROUP ... 0) before new ones ({@code >}).</li>
 * <li>Each entry is bound to the thread as the {@link DeliveryContext} (message id: the
 * {@value DeliveryContext#MESSAGE_ID_HEADER} field, else {@code <stream>:<record id>}; namespace: the
 * group; SpEL variables {@code #record}, {@code #headers} (the fields), {@code #recordId},
 * {@code #stream}) with a {@link RedisStreamAcknowledger}. An {@code @Idempotent} method acknowledges
 * after commit; any other method is acknowledged when it returns.</li>
 * <li>A method that throws leaves the entry pending. A payload that cannot be converted, a missing
 * key and {@code onDuplicate = THROW} are not retryable: the entry is dead-lettered at once. An entry
 * whose key is in progress elsewhere stays pending without using up a delivery.</li>
 * <li>Read errors never cancel the subscription: the consumer pauses for the recovery back-off and
 * reads again; a missing group (NOGROUP) is recreated, logged and counted.</li>
 * <li>Every claim interval, once every consumer has read its own pending entries: entries pending
 * longer than min-idle are claimed (XAUTOCLAIM) and delivered again; entries delivered more than
 * max-deliveries times are written to the dead-letter stream and then acknowledged; entries
 * trimmed from the stream are acknowledged and counted.</li>
 * </ul>
 *
 * @since 0.1.0
 */
public class RedisStreamListenerContainer {

	/** Field of a dead-letter entry: the exception class and message of the last failure. */
	public static final String DLQ_ERROR_FIELD = "dlq-error";

	/** Field of a dead-letter entry: the stream the entry came from. */
	public static final String DLQ_SOURCE_FIELD = "dlq-source";

	/** Field of a dead-letter entry: the entry's record id in its source stream. */
	public static final String DLQ_ID_FIELD = "dlq-id";

	/** Field of a dead-letter entry: the consumer group that gave it up. */
	public static final String DLQ_GROUP_FIELD = "dlq-group";

	/** Field of a dead-letter entry: how often it had been delivered. */
	public static final String DLQ_DELIVERY_COUNT_FIELD = "dlq-delivery-count";

	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private static final int MAX_CLAIM_PAGES_PER_RUN = 10;

	private static final int REMEMBERED_FAILURES = 10_000;

	private final RedisStreamListenerEndpoint endpoint;

	private final RedisStreamSettings settings;

	private final RedisConnectionFactory connectionFactory;

	private final StringRedisTemplate redis;

	private final Supplier<List<IdempotencyListener>> listeners;

	private final Function<MapRecord<String, String, String>, @Nullable Object> argumentResolver;

	private final List<ConsumerState> consumers;

	private final Map<String, Throwable> lastFailures = Collections
		.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {

			private static final long serialVersionUID = 1L;

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, Throwable> eldest) {
				return size() > REMEMBERED_FAILURES;
			}

		});

	private final AtomicInteger activeTasks = new AtomicInteger();

	private final Object lifecycleMonitor = new Object();

	private volatile boolean running;

	private @Nullable StreamMessageListenerContainer<String, MapRecord<String, String, String>> container;

	private @Nullable ScheduledExecutorService recovery;

	private int lastReportedActive = -1;

	/**
	 * Creates a container; {@link #start()} starts it.
	 * @param endpoint the listener method
	 * @param settings reading, recovery and dead-letter settings
	 * @param connectionFactory the Redis to read from (and, in redis-atomic mode, of the store)
	 * @param payloadConverter converts payloads to parameter types other than records and strings, or
	 * {@code null} when none is available
	 * @param listeners told about dead letters, claims, trimmed entries and group recreations
	 */
	public RedisStreamListenerContainer(RedisStreamListenerEndpoint endpoint, RedisStreamSettings settings,
			RedisConnectionFactory connectionFactory, @Nullable RedisStreamPayloadConverter payloadConverter,
			Supplier<List<IdempotencyListener>> listeners) {
		this.endpoint = endpoint;
		this.settings = settings;
		this.connectionFactory = connectionFactory;
		this.redis = new StringRedisTemplate(connectionFactory);
		this.listeners = listeners;
		this.argumentResolver = argumentResolver(endpoint, settings.payloadField(), payloadConverter);
		int concurrency = (endpoint.concurrency() != null) ? endpoint.concurrency() : settings.concurrency();
		String base = (endpoint.consumer() != null) ? endpoint.consumer() : ConsumerNames.unique();
		List<ConsumerState> states = new ArrayList<>();
		for (int i = 0; i < concurrency; i++) {
			states.add(new ConsumerState((concurrency == 1) ? base : base + "-" + i));
		}
		this.consumers = List.copyOf(states);
		ReflectionUtils.makeAccessible(endpoint.method());
	}

	public RedisStreamListenerEndpoint getEndpoint() {
		return this.endpoint;
	}

	/**
	 * The consumer names this container reads as.
	 * @return one name per consumer
	 */
	public List<String> getConsumerNames() {
		return this.consumers.stream().map(ConsumerState::name).toList();
	}

	public boolean isRunning() {
		return this.running;
	}

	/**
	 * How many of this container's subscriptions are reading without error.
	 * @return the number of healthy subscriptions
	 */
	public int getActiveSubscriptions() {
		int active = 0;
		for (ConsumerState consumer : this.consumers) {
			Subscription subscription = consumer.subscription;
			if (this.running && subscription != null && subscription.isActive() && !consumer.failing) {
				active++;
			}
		}
		return active;
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
			SimpleAsyncTaskExecutor threads = new SimpleAsyncTaskExecutor("redis-stream-" + this.endpoint.id() + "-");
			Executor counted = (task) -> {
				this.activeTasks.incrementAndGet();
				try {
					threads.execute(() -> {
						try {
							task.run();
						}
						finally {
							this.activeTasks.decrementAndGet();
						}
					});
				}
				catch (RuntimeException ex) {
					this.activeTasks.decrementAndGet();
					throw ex;
				}
			};
			StreamMessageListenerContainerOptions<String, MapRecord<String, String, String>> options = StreamMessageListenerContainerOptions
				.builder()
				.serializer(StringRedisSerializer.UTF_8)
				.batchSize(this.settings.batchSize())
				.pollTimeout(this.settings.pollTimeout())
				.executor(counted)
				.build();
			StreamMessageListenerContainer<String, MapRecord<String, String, String>> container = StreamMessageListenerContainer
				.create(this.connectionFactory, options);
			container.start();
			this.container = container;
			for (ConsumerState consumer : this.consumers) {
				counted.execute(() -> startConsumer(container, consumer));
			}
			ScheduledExecutorService recovery = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "redis-stream-recovery-" + this.endpoint.id());
				thread.setDaemon(true);
				return thread;
			});
			long interval = this.settings.claimInterval().toMillis();
			recovery.scheduleWithFixedDelay(this::recover, interval, interval, TimeUnit.MILLISECONDS);
			this.recovery = recovery;
		}
	}

	/**
	 * Stops reading and claiming, and waits (at most the poll timeout and a few seconds) for the
	 * deliveries in progress to finish. Entries read but not processed stay pending.
	 */
	public void stop() {
		ScheduledExecutorService recovery;
		synchronized (this.lifecycleMonitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			recovery = this.recovery;
			if (this.container != null) {
				this.container.stop();
			}
			if (recovery != null) {
				recovery.shutdown();
			}
		}
		long deadline = System.nanoTime() + this.settings.pollTimeout().plusSeconds(5).toNanos();
		try {
			while (this.activeTasks.get() > 0 && System.nanoTime() < deadline) {
				Thread.sleep(10);
			}
			if (recovery != null) {
				recovery.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		for (ConsumerState consumer : this.consumers) {
			consumer.subscription = null;
			consumer.failing = false;
			consumer.ownPendingRead = false;
		}
		reportSubscriptions();
	}

	private void startConsumer(StreamMessageListenerContainer<String, MapRecord<String, String, String>> container,
			ConsumerState consumer) {
		try {
			ensureGroup(false);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not create consumer group '" + group() + "' of stream '" + stream()
					+ "'; the consumer retries when it reads", ex);
		}
		try {
			readOwnPending(consumer.name);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not read the pending entries of consumer '" + consumer.name + "' of stream '"
					+ stream() + "'; they are claimed after min-idle", ex);
		}
		finally {
			consumer.ownPendingRead = true;
		}
		synchronized (this.lifecycleMonitor) {
			if (this.running && this.container == container) {
				subscribe(container, consumer);
			}
		}
		reportSubscriptions();
	}

	private void subscribe(StreamMessageListenerContainer<String, MapRecord<String, String, String>> container,
			ConsumerState consumer) {
		StreamReadRequest<String> request = StreamReadRequest
			.builder(StreamOffset.create(stream(), ReadOffset.lastConsumed()))
			.consumer(Consumer.from(group(), consumer.name))
			.autoAcknowledge(false)
			// Never cancel on an error while running: the error handler backs off and reads again.
			.cancelOnError((ex) -> !this.running)
			.errorHandler((ex) -> onReadError(consumer, ex))
			.build();
		consumer.registeredAt = System.nanoTime();
		consumer.subscription = container.register(request, (record) -> {
			consumer.failing = false;
			deliver(record, consumer.name, 1);
		});
	}

	private void onReadError(ConsumerState consumer, Throwable ex) {
		if (!this.running) {
			return;
		}
		boolean first = !consumer.failing;
		consumer.failing = true;
		consumer.lastErrorAt = System.nanoTime();
		if (first) {
			reportSubscriptions();
		}
		if (isError(ex, "NOGROUP")) {
			logger.warn("Consumer group '" + group() + "' of stream '" + stream()
					+ "' is missing (NOGROUP), probably after a Redis restart or failover; recreating it");
			try {
				ensureGroup(true);
			}
			catch (RuntimeException recreation) {
				logger.warn("Could not recreate consumer group '" + group() + "' of stream '" + stream() + "'",
						recreation);
			}
		}
		else if (first) {
			logger.warn("Reading stream '" + stream() + "' as consumer '" + consumer.name + "' of group '" + group()
					+ "' failed; retrying every " + this.settings.recoveryBackOff() + " until it succeeds", ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Reading stream '" + stream() + "' failed again", ex);
		}
		try {
			Thread.sleep(Math.max(1, this.settings.recoveryBackOff().toMillis()));
		}
		catch (InterruptedException interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Creates the consumer group from the start of the stream (creating the stream if needed).
	 * @param recreate whether the group was known to exist before
	 * @return {@code true} if it was created, {@code false} if it existed
	 */
	boolean ensureGroup(boolean recreate) {
		try {
			this.redis.execute((RedisCallback<String>) (connection) -> connection.streamCommands()
				.xGroupCreate(bytes(stream()), group(), ReadOffset.from("0-0"), true));
		}
		catch (RuntimeException ex) {
			if (isError(ex, "BUSYGROUP")) {
				return false;
			}
			throw ex;
		}
		if (recreate) {
			logger.warn("Recreated consumer group '" + group() + "' of stream '" + stream()
					+ "' from the start of the stream; entries still in it are delivered again and deduplicated");
			notifyListeners((listener) -> listener.onStreamGroupRecreated(stream(), group()));
		}
		else {
			logger.info("Created consumer group '" + group() + "' of stream '" + stream() + "'");
		}
		return true;
	}

	private void readOwnPending(String consumer) {
		String after = "0-0";
		while (this.running) {
			Batch batch = run(RedisStreamScripts.READ_OWN_PENDING, group(), consumer,
					String.valueOf(this.settings.batchSize()), after);
			if (batch.entries.isEmpty()) {
				return;
			}
			handle(batch, consumer, false);
			after = batch.entries.get(batch.entries.size() - 1).id;
		}
	}

	/** One recovery run: subscriptions, pending gauges, claims. */
	void recover() {
		if (!this.running) {
			return;
		}
		try {
			checkSubscriptions();
			measurePending();
			// Not while a consumer still reads its own pending entries: a claim would take the same
			// entries (idle since the previous incarnation died), deliver them a second time on this
			// thread, and count a delivery that never failed.
			if (this.consumers.stream().allMatch((consumer) -> consumer.ownPendingRead)) {
				claimIdleEntries();
			}
		}
		catch (RuntimeException ex) {
			if (isError(ex, "NOGROUP")) {
				// Not created yet (start-up) or lost: the consumers' reads create or recreate it.
				logger.debug("Recovery of stream '" + stream() + "' skipped: its group does not exist (yet)");
			}
			else if (anyConsumerFailing()) {
				logger.debug("Recovery of stream '" + stream() + "' failed while its consumers cannot read", ex);
			}
			else {
				logger.warn("Recovery of pending entries of stream '" + stream() + "' failed; retrying in "
						+ this.settings.claimInterval(), ex);
			}
		}
		catch (Error ex) {
			logger.error("Recovery of stream '" + stream() + "' failed", ex);
		}
	}

	private void checkSubscriptions() {
		long quiet = this.settings.pollTimeout().plus(this.settings.recoveryBackOff()).multipliedBy(2).toNanos();
		synchronized (this.lifecycleMonitor) {
			for (ConsumerState consumer : this.consumers) {
				Subscription subscription = consumer.subscription;
				if (consumer.failing && System.nanoTime() - consumer.lastErrorAt > quiet) {
					consumer.failing = false;
					logger.info("Consumer '" + consumer.name + "' reads stream '" + stream() + "' again");
				}
				if (this.running && this.container != null && subscription != null && !subscription.isActive()
						&& System.nanoTime() - consumer.registeredAt > quiet) {
					logger.warn("Subscription of consumer '" + consumer.name + "' to stream '" + stream()
							+ "' ended; subscribing again");
					subscribe(this.container, consumer);
				}
			}
		}
		reportSubscriptions();
	}

	private void measurePending() {
		PendingMessagesSummary summary = this.redis.opsForStream().pending(stream(), group());
		long pending = (summary != null) ? summary.getTotalPendingMessages() : 0;
		Duration oldestIdle = Duration.ZERO;
		if (pending > 0) {
			for (PendingMessage message : this.redis.opsForStream()
				.pending(stream(), group(), Range.unbounded(), 100)) {
				if (message.getElapsedTimeSinceLastDelivery().compareTo(oldestIdle) > 0) {
					oldestIdle = message.getElapsedTimeSinceLastDelivery();
				}
			}
		}
		long measured = pending;
		Duration idle = oldestIdle;
		notifyListeners((listener) -> listener.onStreamPending(stream(), group(), measured, idle));
	}

	private void claimIdleEntries() {
		String claimer = this.consumers.get(0).name;
		String cursor = "0-0";
		int pages = 0;
		do {
			Batch batch = run(RedisStreamScripts.AUTOCLAIM, group(), claimer,
					String.valueOf(this.settings.minIdle().toMillis()), cursor,
					String.valueOf(this.settings.batchSize()));
			handle(batch, claimer, true);
			cursor = batch.cursor;
		}
		while (this.running && !"0-0".equals(cursor) && ++pages < MAX_CLAIM_PAGES_PER_RUN);
	}

	private void handle(Batch batch, String consumer, boolean claimed) {
		int trimmed = 0;
		for (String id : batch.deleted) {
			this.redis.opsForStream().acknowledge(stream(), group(), id);
			trimmed++;
		}
		int reclaimed = 0;
		for (Entry entry : batch.entries) {
			if (entry.fields == null) {
				this.redis.opsForStream().acknowledge(stream(), group(), entry.id);
				trimmed++;
				continue;
			}
			if (claimed) {
				reclaimed++;
			}
		}
		if (trimmed > 0) {
			int count = trimmed;
			logger.warn("Acknowledged " + count + " pending entries of stream '" + stream()
					+ "' that were trimmed or deleted before they could be processed");
			notifyListeners((listener) -> listener.onStreamTrimmed(stream(), group(), count));
		}
		if (reclaimed > 0) {
			int count = reclaimed;
			logger.info("Claimed " + count + " entries of stream '" + stream() + "' pending longer than "
					+ this.settings.minIdle());
			notifyListeners((listener) -> listener.onStreamReclaimed(stream(), group(), count));
		}
		for (Entry entry : batch.entries) {
			if (!this.running) {
				return;
			}
			if (entry.fields == null) {
				continue;
			}
			MapRecord<String, String, String> record = StreamRecords.newRecord()
				.in(stream())
				.withId(RecordId.of(entry.id))
				.ofMap(entry.fields);
			if (entry.deliveryCount > this.settings.maxDeliveries()) {
				Throwable last = this.lastFailures.get(entry.id);
				deadLetterQuietly(record, entry.deliveryCount,
						(last != null) ? last
								: new DeliveriesExhaustedException("Gave up after " + entry.deliveryCount
										+ " deliveries (max-deliveries " + this.settings.maxDeliveries()
										+ "); the last attempt failed elsewhere or did not finish"));
			}
			else {
				deliver(record, consumer, entry.deliveryCount);
			}
		}
	}

	/**
	 * Delivers one entry to the listener method and acknowledges, leaves pending or dead-letters it.
	 * Never throws.
	 * @param record the entry
	 * @param consumer the consumer that owns it
	 * @param deliveryCount how often it has been delivered, this time included
	 */
	void deliver(MapRecord<String, String, String> record, String consumer, long deliveryCount) {
		String id = record.getId().getValue();
		Object argument;
		try {
			argument = this.argumentResolver.apply(record);
		}
		catch (RuntimeException ex) {
			deadLetterQuietly(record, deliveryCount, ex);
			return;
		}
		RedisStreamAcknowledger acknowledger = new RedisStreamAcknowledger(this.redis, stream(), group(), id);
		DeliveryContextHolder.set(deliveryOf(record, group(), acknowledger));
		try {
			this.endpoint.method().invoke(this.endpoint.bean(), argument);
			if (!acknowledger.isAcknowledged()) {
				acknowledger.acknowledge();
			}
			this.lastFailures.remove(id);
		}
		catch (InvocationTargetException ex) {
			onFailure(record, consumer, deliveryCount, (ex.getCause() != null) ? ex.getCause() : ex);
		}
		catch (IllegalAccessException | RuntimeException ex) {
			onFailure(record, consumer, deliveryCount, ex);
		}
		finally {
			DeliveryContextHolder.clear();
		}
	}

	private void onFailure(MapRecord<String, String, String> record, String consumer, long deliveryCount,
			Throwable ex) {
		String id = record.getId().getValue();
		if (ex instanceof IdempotencyInProgressException) {
			// Not a failed attempt: the key is being processed elsewhere. Keep the delivery counter
			// so that waiting for another consumer's lease never dead-letters the entry.
			logger.debug("Entry " + id + " of stream '" + stream() + "' is in progress elsewhere; retried after "
					+ this.settings.minIdle());
			try {
				this.redis.execute((RedisCallback<List<RecordId>>) (connection) -> connection.streamCommands()
					.xClaimJustId(bytes(stream()), group(), consumer,
							XClaimOptions.minIdle(Duration.ZERO).ids(id).retryCount(Math.max(0, deliveryCount - 1))));
			}
			catch (RuntimeException reset) {
				logger.debug("Could not reset the delivery counter of entry " + id, reset);
			}
			return;
		}
		if (isNotRetryable(ex) || deliveryCount >= this.settings.maxDeliveries()) {
			deadLetterQuietly(record, deliveryCount, ex);
			return;
		}
		this.lastFailures.put(id, ex);
		logger.warn("Entry " + id + " of stream '" + stream() + "' failed (delivery " + deliveryCount + " of "
				+ this.settings.maxDeliveries() + "); it stays pending and is delivered again after "
				+ this.settings.minIdle() + ": " + NestedExceptionUtils.getMostSpecificCause(ex));
	}

	private static boolean isNotRetryable(Throwable ex) {
		return ex instanceof NonRetryableIdempotencyException || ex instanceof RedisStreamPayloadException;
	}

	private void deadLetterQuietly(MapRecord<String, String, String> record, long deliveryCount, Throwable cause) {
		try {
			deadLetter(record, deliveryCount, cause);
		}
		catch (RuntimeException ex) {
			logger.error("Could not dead-letter entry " + record.getId() + " of stream '" + stream()
					+ "'; it stays pending and is tried again after " + this.settings.minIdle(), ex);
		}
	}

	/**
	 * Writes the entry to the dead-letter stream, then (only if that succeeded) acknowledges it.
	 */
	private void deadLetter(MapRecord<String, String, String> record, long deliveryCount, Throwable cause) {
		String destination = stream() + this.settings.deadLetterSuffix();
		String id = record.getId().getValue();
		Map<String, String> fields = new LinkedHashMap<>(record.getValue());
		fields.put(DLQ_SOURCE_FIELD, stream());
		fields.put(DLQ_ID_FIELD, id);
		fields.put(DLQ_GROUP_FIELD, group());
		fields.put(DLQ_DELIVERY_COUNT_FIELD, String.valueOf(deliveryCount));
		fields.put(DLQ_ERROR_FIELD, describe(cause));
		this.redis.opsForStream().add(StreamRecords.newRecord().in(destination).ofMap(fields));
		this.redis.opsForStream().acknowledge(stream(), group(), id);
		this.lastFailures.remove(id);
		logger.warn("Dead-lettered entry " + id + " of stream '" + stream() + "' to '" + destination + "' after "
				+ deliveryCount + " deliveries: " + NestedExceptionUtils.getMostSpecificCause(cause));
		notifyListeners((listener) -> listener.onDeadLettered(stream(), destination, cause));
	}

	private static String describe(Throwable cause) {
		Throwable specific = NestedExceptionUtils.getMostSpecificCause(cause);
		String description = specific.getClass().getName()
				+ ((specific.getMessage() != null) ? ": " + specific.getMessage() : "");
		return (description.length() > 2000) ? description.substring(0, 2000) : description;
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
		Map<String, Object> variables = new LinkedHashMap<>();
		variables.put("record", record);
		variables.put("headers", record.getValue());
		variables.put("recordId", record.getId().getValue());
		variables.put("stream", record.getStream());
		return new DeliveryContext(messageId(record), group, variables, acknowledger);
	}

	/**
	 * The entry's message id: the {@value DeliveryContext#MESSAGE_ID_HEADER} field (written by the
	 * outbox relay) if present, else {@code <stream>:<record id>}, which identifies an entry but not a
	 * producer's re-send.
	 * @param record the entry
	 * @return the message id
	 */
	public static String messageId(MapRecord<String, String, String> record) {
		String header = record.getValue().get(DeliveryContext.MESSAGE_ID_HEADER);
		if (header != null && !header.isEmpty()) {
			return header;
		}
		return record.getStream() + ":" + record.getId().getValue();
	}

	private Batch run(@SuppressWarnings("rawtypes") RedisScript<List> script, String... args) {
		List<?> result = this.redis.execute(script, List.of(stream()), (Object[]) args);
		return Batch.of(result);
	}

	private boolean anyConsumerFailing() {
		return this.consumers.stream().anyMatch((consumer) -> consumer.failing);
	}

	private void reportSubscriptions() {
		int active = getActiveSubscriptions();
		synchronized (this.consumers) {
			if (active == this.lastReportedActive && this.running) {
				return;
			}
			this.lastReportedActive = active;
		}
		notifyListeners((listener) -> listener.onStreamSubscriptions(stream(), group(), active));
	}

	private void notifyListeners(java.util.function.Consumer<IdempotencyListener> notification) {
		for (IdempotencyListener listener : this.listeners.get()) {
			try {
				notification.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("IdempotencyListener " + listener + " failed", ex);
			}
		}
	}

	private String stream() {
		return this.endpoint.stream();
	}

	private String group() {
		return this.endpoint.group();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static boolean isError(Throwable ex, String code) {
		for (Throwable current = ex; current != null; current = current.getCause()) {
			if (current.getMessage() != null && current.getMessage().contains(code)) {
				return true;
			}
			if (current.getCause() == current) {
				break;
			}
		}
		return false;
	}

	private static Function<MapRecord<String, String, String>, @Nullable Object> argumentResolver(
			RedisStreamListenerEndpoint endpoint, String payloadField, @Nullable RedisStreamPayloadConverter converter) {
		Method method = endpoint.method();
		Class<?> raw = method.getParameterTypes()[0];
		Type generic = method.getGenericParameterTypes()[0];
		if (raw.isAssignableFrom(MapRecord.class)) {
			return (record) -> record;
		}
		if (ObjectRecord.class.equals(raw)) {
			ResolvableType valueType = ResolvableType.forMethodParameter(method, 0).getGeneric(1);
			Type target = (valueType.resolve() != null) ? valueType.getType() : String.class;
			return (record) -> StreamRecords.newRecord()
				.in(record.getStream())
				.withId(record.getId())
				.ofObject(payload(record, payloadField, target, converter));
		}
		return (record) -> payload(record, payloadField, generic, converter);
	}

	private static Object payload(MapRecord<String, String, String> record, String payloadField, Type target,
			@Nullable RedisStreamPayloadConverter converter) {
		String payload = record.getValue().get(payloadField);
		if (payload == null) {
			throw new RedisStreamPayloadException(
					"Entry " + record.getId() + " of stream '" + record.getStream() + "' has no field '" + payloadField + "'");
		}
		if (String.class.equals(target)) {
			return payload;
		}
		if (converter == null) {
			throw new RedisStreamPayloadException("No RedisStreamPayloadConverter to convert the payload of entry "
					+ record.getId() + " to " + target.getTypeName() + "; add Jackson or define one");
		}
		try {
			return converter.convert(payload, target);
		}
		catch (RuntimeException ex) {
			throw new RedisStreamPayloadException("Payload of entry " + record.getId() + " of stream '"
					+ record.getStream() + "' cannot be converted to " + target.getTypeName(), ex);
		}
	}

	/** One consumer of the group and its subscription. */
	private static final class ConsumerState {

		private final String name;

		private volatile @Nullable Subscription subscription;

		private volatile boolean failing;

		private volatile long lastErrorAt;

		private volatile long registeredAt;

		/** Whether the consumer has read its own pending entries since it started. */
		private volatile boolean ownPendingRead;

		ConsumerState(String name) {
			this.name = name;
		}

		String name() {
			return this.name;
		}

	}

	/** A script's answer: entries with their delivery counters, trimmed ids, the next cursor. */
	private record Batch(String cursor, List<Entry> entries, List<String> deleted) {

		static Batch of(@Nullable List<?> result) {
			if (result == null || result.size() < 4) {
				return new Batch("0-0", List.of(), List.of());
			}
			String cursor = String.valueOf(result.get(0));
			List<?> rawEntries = (result.get(1) instanceof List<?> list) ? list : List.of();
			List<?> counts = (result.get(3) instanceof List<?> list) ? list : List.of();
			List<Entry> entries = new ArrayList<>();
			for (int i = 0; i < rawEntries.size(); i++) {
				if (!(rawEntries.get(i) instanceof List<?> entry) || entry.isEmpty()) {
					continue;
				}
				Map<String, String> fields = null;
				if (entry.size() > 1 && entry.get(1) instanceof List<?> flat) {
					fields = new LinkedHashMap<>();
					for (int f = 0; f + 1 < flat.size(); f += 2) {
						fields.put(String.valueOf(flat.get(f)), String.valueOf(flat.get(f + 1)));
					}
				}
				long count = (i < counts.size() && counts.get(i) instanceof Number number) ? number.longValue() : 1;
				entries.add(new Entry(String.valueOf(entry.get(0)), fields, count));
			}
			List<String> deleted = new ArrayList<>();
			if (result.get(2) instanceof List<?> ids) {
				for (Object id : ids) {
					if (id != null) {
						deleted.add(String.valueOf(id));
					}
				}
			}
			return new Batch(cursor, entries, deleted);
		}

	}

	/** One entry of a script's answer; {@code fields} is {@code null} when it was trimmed away. */
	private record Entry(String id, @Nullable Map<String, String> fields, long deliveryCount) {

	}

}
