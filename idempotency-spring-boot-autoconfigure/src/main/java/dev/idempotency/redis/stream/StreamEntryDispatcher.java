package dev.idempotency.redis.stream;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import dev.idempotency.core.DeliveryContextHolder;
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
 */
final class StreamEntryDispatcher {

	private final StringRedisTemplate redis;

	private final StreamBinding binding;

	private final Object bean;

	private final Method method;

	private final StreamArgumentResolver arguments;

	private final StreamFailurePolicy failures;

	private final StreamFailClosed failClosed;

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
		this.redis = redis;
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
			Throwable failure = invoke(record, argument);
			if (failure == null) {
				this.failClosed.delivered();
				this.failures.succeeded(record.getId().getValue());
				return;
			}
			if (!this.failClosed.pausesOn(failure)) {
				this.failClosed.delivered();
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

	/** Invokes the method once and acknowledges; returns what it failed with, {@code null} if it did not. */
	private @Nullable Throwable invoke(MapRecord<String, String, String> record, Object argument) {
		RedisStreamAcknowledger acknowledger = new RedisStreamAcknowledger(this.redis, this.binding.stream(),
				this.binding.group(), record.getId().getValue());
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

}
