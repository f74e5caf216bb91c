package dev.idempotency.redis.stream;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Consumer;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.support.IdempotentAdvisor;
import dev.idempotency.support.TransactionBatch;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.util.ReflectionUtils;

/**
 * Runs the entries of one read of a record-style {@code @Idempotent} listener in one transaction
 * (transaction batching, {@code idempotency.redis.stream.transaction-batching.enabled}):
 * <ol>
 * <li>Each entry is passed to the method with its own delivery context, inside a
 * {@link TransactionBatch}: the interceptor resolves its key and keeps the call. The context has no
 * acknowledger: the entries are acknowledged here, together, once the batch committed.</li>
 * <li>The batch runs: one transaction, one claim of all the keys, the method called for each entry
 * claimed now, in stream order, one commit. Then every entry of the read, duplicates included, is
 * recorded for the read's XACK, which the read loop sends after the read: never before the
 * commit.</li>
 * <li>If anything fails (an entry's call, the claim, the commit), all is rolled back, nothing is
 * acknowledged, and {@link #deliver} answers 0: the read loop delivers the entries one by one, each in
 * a transaction of its own as without batching, where a failing entry stays pending, is retried
 * and dead-lettered alone, and an infrastructure failure pauses the listener on the first entry.
 * A batch the interceptor refuses (see {@link TransactionBatch#refusal()}), an entry whose payload
 * cannot be converted and an entry whose key cannot be resolved run that way too.</li>
 * </ol>
 * Only listeners whose method is {@code @Idempotent} and returns {@code void}, on a bean advised by
 * the {@link IdempotentAdvisor}, get one ({@link #of}); the others run entry by entry, as do the
 * entries read from the pending list or claimed (delivered one at a time anyway). A refusal found at
 * run time (leased mode, a fingerprint, no transaction manager) is logged at INFO once per listener,
 * then at DEBUG. Used by the container's consumer threads, each batch on the thread that read it.
 *
 * @since 0.2.0
 */
final class TransactionBatchingReads {

	// The container's category, as the other collaborators: logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private final StreamBinding binding;

	private final String listenerId;

	private final Object bean;

	private final Method method;

	private final StreamArgumentResolver arguments;

	private volatile boolean refusalLogged;

	/** Cleared for good when a call was not intercepted: the method runs entry by entry from then on. */
	private volatile boolean batching = true;

	private TransactionBatchingReads(StreamBinding binding, RedisStreamListenerEndpoint endpoint,
			StreamArgumentResolver arguments) {
		this.binding = binding;
		this.listenerId = endpoint.id();
		this.bean = endpoint.bean();
		this.method = endpoint.method();
		this.arguments = arguments;
		ReflectionUtils.makeAccessible(this.method);
	}

	/**
	 * The transaction batching of a listener, if its method can be batched at all.
	 * @param binding the stream and group
	 * @param endpoint the listener method and the bean to call it on
	 * @param arguments resolves the method's argument
	 * @return the batching, or {@code null} (logged at INFO) when the method is not
	 * {@code @Idempotent}, returns a value or is not advised
	 */
	static @Nullable TransactionBatchingReads of(StreamBinding binding, RedisStreamListenerEndpoint endpoint,
			StreamArgumentResolver arguments) {
		String refusal = refusal(endpoint);
		if (refusal != null) {
			logger.info("Listener " + endpoint.id() + " runs entry by entry, not in one transaction per read: "
					+ refusal);
			return null;
		}
		return new TransactionBatchingReads(binding, endpoint, arguments);
	}

	private static @Nullable String refusal(RedisStreamListenerEndpoint endpoint) {
		Method method = endpoint.method();
		if (!AnnotatedElementUtils.hasAnnotation(method, Idempotent.class)) {
			return "its method is not @Idempotent";
		}
		if (method.getReturnType() != void.class) {
			return "its method returns a value";
		}
		if (!IdempotentAdvisor.advises(endpoint.bean())) {
			return "its bean is not advised by the @Idempotent interceptor (idempotency.enabled=false?)";
		}
		return null;
	}

	/**
	 * Delivers the entries of one read in one transaction and records their acknowledgements.
	 * @param entries the read's entries, in stream order
	 * @param acks where the acknowledgements of the entries go once the batch committed
	 * @param onEntry told about each entry before it is passed to the method
	 * @return how many entries, from the first, are settled (acknowledgement recorded): all when the
	 * batch committed, 1 when the first entry ran on its own and succeeded (the method turned out not
	 * to be intercepted), 0 when they are to be delivered one by one
	 */
	int deliver(List<MapRecord<String, String, String>> entries, StreamAcks acks,
			Consumer<MapRecord<String, String, String>> onEntry) {
		if (!this.batching || entries.size() < 2) {
			return 0;
		}
		TransactionBatch batch = TransactionBatch.open();
		try {
			for (int i = 0; i < entries.size() && batch.refusal() == null; i++) {
				MapRecord<String, String, String> entry = entries.get(i);
				Object argument;
				try {
					argument = this.arguments.resolve(entry);
				}
				catch (RuntimeException ex) {
					// One by one, where the entry is dead-lettered as unreadable.
					logRefusal("the payload of entry " + entry.getId() + " cannot be converted: " + ex);
					return 0;
				}
				onEntry.accept(entry);
				int seen = batch.seen();
				Throwable failed = collect(entry, argument);
				if (failed != null) {
					// Failed in the interceptor's set-up: one by one, where it is handled.
					logRefusal("entry " + entry.getId() + " could not be passed to the method: " + failed);
					return 0;
				}
				if (batch.seen() == seen) {
					return ranOnItsOwn(i, entry, acks);
				}
			}
		}
		finally {
			batch.close();
			DeliveryContextHolder.clear();
		}
		if (batch.refusal() != null) {
			logRefusal(batch.refusal());
			return 0;
		}
		try {
			batch.run();
		}
		catch (Throwable ex) {
			if (ex instanceof VirtualMachineError error) {
				throw error;
			}
			if (logger.isDebugEnabled()) {
				logger.debug("Transaction batch of " + entries.size() + " entries of listener " + this.listenerId
						+ " rolled back; delivering them one by one", ex);
			}
			return 0;
		}
		// After the commit: the read loop sends them with one XACK after the read.
		for (MapRecord<String, String, String> entry : entries) {
			acks.acknowledge(entry.getId());
		}
		return entries.size();
	}

	/** Passes one entry to the method, bound as the current delivery; returns what failed, if anything. */
	private @Nullable Throwable collect(MapRecord<String, String, String> entry, @Nullable Object argument) {
		try {
			DeliveryContextHolder.set(RedisStreamDeliveryContext.of(entry, this.binding.group(), null));
			this.method.invoke(this.bean, argument);
			return null;
		}
		catch (InvocationTargetException ex) {
			return (ex.getCause() != null) ? ex.getCause() : ex;
		}
		catch (IllegalAccessException | RuntimeException ex) {
			return ex;
		}
	}

	/**
	 * A call that returned without reaching the batch ran the method on its own: batching stops for
	 * this listener. The first entry is then settled as the entry-by-entry path settles an entry whose
	 * method returned; a later one cannot be, since the calls before it were only collected.
	 */
	private int ranOnItsOwn(int index, MapRecord<String, String, String> entry, StreamAcks acks) {
		this.batching = false;
		logger.warn("Listener " + this.listenerId + " runs entry by entry from now on: its method ran without the "
				+ "@Idempotent interceptor collecting it");
		if (index > 0) {
			throw new IllegalStateException("Listener " + this.listenerId + " ran entry " + entry.getId()
					+ " on its own after collecting the entries of its read before it");
		}
		acks.acknowledge(entry.getId());
		return 1;
	}

	private void logRefusal(@Nullable String reason) {
		if (!this.refusalLogged) {
			this.refusalLogged = true;
			logger.info("Listener " + this.listenerId + " runs entry by entry, not in one transaction per read: "
					+ reason + " (logged once; at DEBUG each time)");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Listener " + this.listenerId + " runs entry by entry: " + reason);
		}
	}

}
