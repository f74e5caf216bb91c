package dev.idempotency.redis.stream;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import dev.idempotency.core.DeliveryContextHolder;

import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ReflectionUtils;

/**
 * Delivers one entry to the listener method, whichever way it was read (subscription, the
 * consumer's own pending entries, a claim): resolves the argument, binds the
 * {@link RedisStreamDeliveryContext delivery context} with a {@link RedisStreamAcknowledger},
 * invokes the method and acknowledges the entry if nobody did (an {@code @Idempotent} method
 * acknowledges after its commit). Everything that does not succeed goes to the
 * {@link StreamFailurePolicy}. Never throws.
 */
final class StreamEntryDispatcher {

	private final StringRedisTemplate redis;

	private final StreamBinding binding;

	private final Object bean;

	private final Method method;

	private final StreamArgumentResolver arguments;

	private final StreamFailurePolicy failures;

	/**
	 * Creates the dispatcher of one listener method.
	 * @param redis the Redis of the stream
	 * @param binding the stream and group
	 * @param endpoint the bean and method to invoke
	 * @param arguments resolves the method's argument
	 * @param failures decides about entries that do not succeed
	 */
	StreamEntryDispatcher(StringRedisTemplate redis, StreamBinding binding, RedisStreamListenerEndpoint endpoint,
			StreamArgumentResolver arguments, StreamFailurePolicy failures) {
		this.redis = redis;
		this.binding = binding;
		this.bean = endpoint.bean();
		this.method = endpoint.method();
		this.arguments = arguments;
		this.failures = failures;
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
		String id = record.getId().getValue();
		RedisStreamAcknowledger acknowledger = new RedisStreamAcknowledger(this.redis, this.binding.stream(),
				this.binding.group(), id);
		DeliveryContextHolder.set(RedisStreamDeliveryContext.of(record, this.binding.group(), acknowledger));
		try {
			this.method.invoke(this.bean, argument);
			if (!acknowledger.isAcknowledged()) {
				acknowledger.acknowledge();
			}
			this.failures.succeeded(id);
		}
		catch (InvocationTargetException ex) {
			this.failures.failed(record, consumer, deliveryCount, (ex.getCause() != null) ? ex.getCause() : ex);
		}
		catch (IllegalAccessException | RuntimeException ex) {
			this.failures.failed(record, consumer, deliveryCount, ex);
		}
		finally {
			DeliveryContextHolder.clear();
		}
	}

}
