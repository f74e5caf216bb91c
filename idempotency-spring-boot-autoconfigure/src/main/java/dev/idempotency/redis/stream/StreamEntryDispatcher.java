package dev.idempotency.redis.stream;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Consumer;

import dev.idempotency.core.DeliveryContextHolder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ReflectionUtils;

/**
 * Delivers one entry to the listener method, whichever way it was read (subscription, the
 * consumer's own pending entries, a claim): resolves the argument, binds the
 * {@link RedisStreamDeliveryContext delivery context} with a {@link RedisStreamAcknowledger},
 * invokes the method and acknowledges the entry if nobody did (an {@code @Idempotent} method
 * acknowledges after its commit). A failure that {@link StreamFailClosed} calls the
 * infrastructure's pauses the listener and the entry is retried in place, on the same thread and
 * with the same delivery count, once the infrastructure answers; every other failure goes to the
 * {@link StreamFailurePolicy}. Never throws.
 * <p>
 * With transaction batching on, the entries of a consumer's read first go to its
 * {@link TransactionBatchingReads} ({@link #dispatchInOneTransaction}); when that batch does not
 * commit, they come here one by one.
 */
final class StreamEntryDispatcher {

	// The container's category, as the other collaborators: logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private final StreamAcks immediateAcks;

	private final StreamBinding binding;

	private final Object bean;

	private final Method method;

	private final StreamArgumentResolver arguments;

	private final StreamFailurePolicy failures;

	private final StreamFailClosed failClosed;

	private final @Nullable TransactionBatchingReads batches;

	/**
	 * Creates the dispatcher of one listener method.
	 * @param redis the Redis of the stream
	 * @param binding the stream and group
	 * @param endpoint the bean and method to invoke
	 * @param arguments resolves the method's argument
	 * @param failures decides about entries that fail because of the message
	 * @param failClosed holds entries that fail because of the infrastructure
	 */
	StreamEntryDispatcher(StringRedisTemplate redis, StreamBinding binding, RedisStreamListenerEndpoint endpoint,
			StreamArgumentResolver arguments, StreamFailurePolicy failures, StreamFailClosed failClosed) {
		this(redis, binding, endpoint, arguments, failures, failClosed, null);
	}

	/**
	 * Creates the dispatcher of one listener method whose reads may run in one transaction each.
	 * @param redis the Redis of the stream
	 * @param binding the stream and group
	 * @param endpoint the bean and method to invoke
	 * @param arguments resolves the method's argument
	 * @param failures decides about entries that fail because of the message
	 * @param failClosed holds entries that fail because of the infrastructure
	 * @param batches runs a read's entries in one transaction, or {@code null} when transaction
	 * batching is off or the method cannot be batched
	 */
	StreamEntryDispatcher(StringRedisTemplate redis, StreamBinding binding, RedisStreamListenerEndpoint endpoint,
			StreamArgumentResolver arguments, StreamFailurePolicy failures, StreamFailClosed failClosed,
			@Nullable TransactionBatchingReads batches) {
		this.batches = batches;
		this.immediateAcks = new TemplateStreamAcks(redis, binding.stream(), binding.group());
		this.binding = binding;
		this.bean = endpoint.bean();
		this.method = endpoint.method();
		this.arguments = arguments;
		this.failures = failures;
		this.failClosed = failClosed;
		ReflectionUtils.makeAccessible(this.method);
	}

	/**
	 * Delivers one entry and acknowledges it, leaves it pending or dead-letters it; an entry
	 * delivered more often than max-deliveries is given up without calling the method.
	 * @param record the entry
	 * @param consumer the consumer that owns it
	 * @param deliveryCount how often it has been delivered, this time included
	 */
	void dispatch(MapRecord<String, String, String> record, String consumer, long deliveryCount) {
		dispatch(record, consumer, deliveryCount, this.immediateAcks);
	}

	/**
	 * Delivers one entry like {@link #dispatch(MapRecord, String, long)}, its acknowledgement going to
	 * {@code acks}. When the entry fails, the acknowledgements recorded so far are sent before the
	 * failure is handled (or the entry held through an outage), so entries already done do not stay
	 * pending, to be claimed and delivered again, while this one fails or waits.
	 * @param record the entry
	 * @param consumer the consumer that owns it
	 * @param deliveryCount how often it has been delivered, this time included
	 * @param acks where its acknowledgement goes
	 */
	void dispatch(MapRecord<String, String, String> record, String consumer, long deliveryCount, StreamAcks acks) {
		if (this.failures.isExhausted(deliveryCount)) {
			this.failures.exhausted(record, deliveryCount);
			return;
		}
		Object argument;
		try {
			argument = this.arguments.resolve(record);
		}
		catch (RuntimeException ex) {
			this.failures.unreadable(record, deliveryCount, ex);
			return;
		}
		while (true) {
			long attemptStartedAt = System.nanoTime();
			Throwable failure = invoke(record, argument, acks);
			if (failure == null) {
				this.failClosed.delivered(attemptStartedAt);
				this.failures.succeeded(record.getId().getValue());
				return;
			}
			flushQuietly(acks);
			if (!this.failClosed.pausesOn(failure)) {
				this.failClosed.delivered(attemptStartedAt);
				this.failures.failed(record, consumer, deliveryCount, failure);
				return;
			}
			// The infrastructure's fault: not a delivery. Hold the entry, pending in this consumer,
			// and retry it here once the infrastructure answers; never read it again meanwhile.
			if (!this.failClosed.holdUntilRecovered(failure)) {
				this.failures.abandoned(record, consumer, deliveryCount);
				return;
			}
		}
	}

	/**
	 * Delivers the entries of one read in one transaction, when transaction batching is on for the
	 * method ({@link TransactionBatchingReads}); the entries it does not settle are to be
	 * {@linkplain #dispatch(MapRecord, String, long, StreamAcks) dispatched} one by one.
	 * @param entries the read's entries, in stream order, each delivered for the first time
	 * @param acks where their acknowledgements go, recorded once the batch committed
	 * @param onEntry told about each entry before it is passed to the method
	 * @return how many entries, from the first, are settled; 0 when batching is off
	 */
	int dispatchInOneTransaction(List<MapRecord<String, String, String>> entries, StreamAcks acks,
			Consumer<MapRecord<String, String, String>> onEntry) {
		if (this.batches == null) {
			return 0;
		}
		long attemptStartedAt = System.nanoTime();
		int settled = this.batches.deliver(entries, acks, onEntry);
		if (settled > 0) {
			this.failClosed.delivered(attemptStartedAt);
			for (int i = 0; i < settled; i++) {
				this.failures.succeeded(entries.get(i).getId().getValue());
			}
		}
		return settled;
	}

	/** Invokes the method once and acknowledges; returns what it failed with, {@code null} if it did not. */
	private @Nullable Throwable invoke(MapRecord<String, String, String> record, Object argument, StreamAcks acks) {
		RedisStreamAcknowledger acknowledger = new RedisStreamAcknowledger(acks, this.binding.stream(),
				this.binding.group(), record.getId());
		DeliveryContextHolder.set(RedisStreamDeliveryContext.of(record, this.binding.group(), acknowledger));
		try {
			this.method.invoke(this.bean, argument);
			if (!acknowledger.isAcknowledged()) {
				acknowledger.acknowledge();
			}
			return null;
		}
		catch (InvocationTargetException ex) {
			return (ex.getCause() != null) ? ex.getCause() : ex;
		}
		catch (IllegalAccessException | RuntimeException ex) {
			return ex;
		}
		finally {
			DeliveryContextHolder.clear();
		}
	}

	/** Sends the acknowledgements recorded so far; if that fails they are kept for the next XACK. */
	private static void flushQuietly(StreamAcks acks) {
		try {
			acks.flush();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not acknowledge the entries done before a failed one; sending them with the next XACK",
					ex);
		}
	}

}
