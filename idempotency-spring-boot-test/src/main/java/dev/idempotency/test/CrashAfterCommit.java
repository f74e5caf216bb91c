package dev.idempotency.test;

import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.core.CompletingAcknowledger;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.MessageAcknowledger;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Loses the acknowledgement of the next deliveries, as a consumer that crashed between the commit and
 * the acknowledgement would. Runs around {@code @Idempotent} methods, outside the engine's
 * interceptor:
 * <ul>
 * <li>a delivery whose transport acknowledges through the engine ({@link DeliveryContext#acknowledger()},
 * such as a Redis Stream's {@code XACK}) gets an acknowledger that throws instead, so the engine has
 * committed and the entry stays pending;</li>
 * <li>any other call (a Kafka container that commits the offset once the listener returned, a plain
 * method call) throws once the method returned, after the engine committed: the container does not
 * commit the offset and the caller sees a failure.</li>
 * </ul>
 * An acknowledger that completes and acknowledges in one step ({@link CompletingAcknowledger}, the
 * Redis store with a Redis Stream) is left alone: there the crash cannot fall between the two, and
 * the kit throws after it.
 */
final class CrashAfterCommit implements MethodInterceptor {

	private final AtomicInteger armed = new AtomicInteger();

	void arm(int deliveries) {
		this.armed.addAndGet(deliveries);
	}

	void disarm() {
		this.armed.set(0);
	}

	int armed() {
		return this.armed.get();
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		if (this.armed.get() <= 0) {
			return invocation.proceed();
		}
		DeliveryContext context = DeliveryContextHolder.current();
		MessageAcknowledger acknowledger = (context != null) ? context.acknowledger() : null;
		if (context == null || acknowledger == null || acknowledger instanceof CompletingAcknowledger) {
			Object result = invocation.proceed();
			if (take()) {
				throw new SimulatedCrashException("Simulated crash after the commit of " + describe(invocation)
						+ ", before its acknowledgement");
			}
			return result;
		}
		DeliveryContextHolder.set(new DeliveryContext(context.messageId(), context.namespace(), context.variables(),
				() -> {
					if (take()) {
						throw new SimulatedCrashException("Simulated crash after the commit of "
								+ describe(invocation) + ", instead of its acknowledgement");
					}
					acknowledger.acknowledge();
				}, context.elements()));
		try {
			return invocation.proceed();
		}
		finally {
			DeliveryContextHolder.set(context);
		}
	}

	private boolean take() {
		return this.armed.getAndUpdate((left) -> Math.max(0, left - 1)) > 0;
	}

	private static String describe(MethodInvocation invocation) {
		return invocation.getMethod().getDeclaringClass().getSimpleName() + "#" + invocation.getMethod().getName();
	}

}
