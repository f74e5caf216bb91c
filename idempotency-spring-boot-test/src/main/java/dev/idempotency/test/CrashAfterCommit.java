package dev.idempotency.test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.CompletingAcknowledger;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
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
 * Where the transport's acknowledger completes the key and acknowledges in one step
 * ({@link CompletingAcknowledger} with the Redis store and a Redis Stream), the crash cannot fall
 * between the two: that step runs, and the kit throws after it.
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
		if (context == null || acknowledger == null) {
			Object result = invocation.proceed();
			crashIfArmed(invocation, "before its acknowledgement");
			return result;
		}
		CrashingAcknowledger crashing = new CrashingAcknowledger(acknowledger, invocation);
		DeliveryContextHolder.set(new DeliveryContext(context.messageId(), context.namespace(), context.variables(),
				crashing, context.elements()));
		Object result;
		try {
			result = invocation.proceed();
		}
		finally {
			DeliveryContextHolder.set(context);
		}
		if (crashing.completedAtomically) {
			crashIfArmed(invocation, "which completed and acknowledged it in one step");
		}
		return result;
	}

	private void crashIfArmed(MethodInvocation invocation, String when) {
		if (take()) {
			throw new SimulatedCrashException(
					"Simulated crash after the commit of " + describe(invocation) + ", " + when);
		}
	}

	private boolean take() {
		return this.armed.getAndUpdate((left) -> Math.max(0, left - 1)) > 0;
	}

	private static String describe(MethodInvocation invocation) {
		return invocation.getMethod().getDeclaringClass().getSimpleName() + "#" + invocation.getMethod().getName();
	}

	/**
	 * Stands in for the transport's acknowledger: throws instead of acknowledging while a crash is
	 * armed. Offers the one-step completion to the transport's acknowledger, which declines it unless
	 * the store and the stream can do both at once.
	 */
	private final class CrashingAcknowledger implements CompletingAcknowledger {

		private final MessageAcknowledger delegate;

		private final MethodInvocation invocation;

		private volatile boolean completedAtomically;

		CrashingAcknowledger(MessageAcknowledger delegate, MethodInvocation invocation) {
			this.delegate = delegate;
			this.invocation = invocation;
		}

		@Override
		public void acknowledge() {
			crashIfArmed(this.invocation, "instead of its acknowledgement");
			this.delegate.acknowledge();
		}

		@Override
		public boolean completeAndAcknowledge(IdempotencyStore store, IdempotencyKey key, ClaimResult claim,
				Duration retention) {
			boolean done = this.delegate instanceof CompletingAcknowledger completing
					&& completing.completeAndAcknowledge(store, key, claim, retention);
			this.completedAtomically = done;
			return done;
		}

	}

}
