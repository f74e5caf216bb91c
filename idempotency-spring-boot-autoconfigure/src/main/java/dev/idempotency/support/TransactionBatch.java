package dev.idempotency.support;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.IdempotencyKey;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.util.Assert;

/**
 * The calls of one {@code @Idempotent} method for several messages, run in one transaction: a
 * transport adapter {@link #open() opens} a batch on the consumer thread and calls the method once
 * per message as usual; the {@link IdempotencyInterceptor} then only resolves each call's key and
 * keeps the call, without running it. {@link #run()} claims all the keys with one
 * {@link dev.idempotency.core.IdempotencyStore#claimAll claimAll}, runs the calls claimed now in
 * their order, each with its own delivery bound, and commits once. Each message counts one outcome.
 * <p>
 * A batch that cannot run this way is {@link #refusal() refused} and runs nothing: a method that
 * returns a value, records key details, is acknowledged message by message or is not claimed in a
 * transaction; a key that cannot be resolved; calls of two methods. The adapter then calls the
 * method once per message again, without a batch. After a failed {@link #run()} everything is
 * rolled back and no outcome is told: the adapter does the same, and the record path reports.
 * Not thread-safe: one instance per batch, on the thread that opened it.
 *
 * @since 0.2.0
 */
public final class TransactionBatch implements AutoCloseable {

	private static final ThreadLocal<TransactionBatch> COLLECTING = new ThreadLocal<>();

	private final List<Call> calls = new ArrayList<>();

	private int seen;

	private @Nullable String refusal;

	private @Nullable IdempotencyInterceptor interceptor;

	private @Nullable Object target;

	private @Nullable IdempotentMethod method;

	private @Nullable ClaimPath path;

	private boolean closed;

	private TransactionBatch() {
	}

	/**
	 * Starts collecting the {@code @Idempotent} calls of this thread.
	 * @return the batch, collecting until {@link #close()}
	 * @throws IllegalStateException if a batch is already collecting on this thread
	 */
	public static TransactionBatch open() {
		Assert.state(COLLECTING.get() == null, "A transaction batch is already collecting on this thread");
		TransactionBatch batch = new TransactionBatch();
		COLLECTING.set(batch);
		return batch;
	}

	/** The batch collecting on this thread, or {@code null}. */
	static @Nullable TransactionBatch collecting() {
		return COLLECTING.get();
	}

	/**
	 * Stops collecting; the calls collected so far are kept for {@link #run()}.
	 */
	@Override
	public void close() {
		if (!this.closed) {
			this.closed = true;
			COLLECTING.remove();
		}
	}

	/**
	 * How many {@code @Idempotent} calls reached the batch, collected or not. A call the adapter made
	 * that did not reach it ran on its own.
	 * @return the number of calls seen
	 */
	public int seen() {
		return this.seen;
	}

	/**
	 * Why the calls cannot run as one batch.
	 * @return the reason, or {@code null} if they can
	 */
	public @Nullable String refusal() {
		return this.refusal;
	}

	/**
	 * Runs the collected calls in one transaction, as the class description says. Does nothing if
	 * nothing was collected.
	 * @throws Throwable whatever failed, after everything was rolled back
	 * @throws IllegalStateException if the batch is still collecting or was refused
	 */
	public void run() throws Throwable {
		Assert.state(this.closed, "Close the transaction batch before running it");
		Assert.state(this.refusal == null, () -> "The transaction batch was refused: " + this.refusal);
		if (this.calls.isEmpty() || this.interceptor == null) {
			return;
		}
		this.interceptor.runBatch(this);
	}

	/**
	 * Takes one intercepted call instead of running it, or refuses the batch; either way the call
	 * does not run now.
	 * @param interceptor the interceptor that runs the batch
	 * @param call the intercepted call, through a Spring AOP proxy
	 * @param target the object the method is called on
	 * @param method the method's metadata
	 * @param path where its keys are claimed
	 * @param delivery the call's message
	 * @param acknowledgedAlone whether the call has an acknowledger of its own
	 * @param key resolves the call's key
	 */
	void collect(IdempotencyInterceptor interceptor, MethodInvocation call, Object target, IdempotentMethod method,
			ClaimPath path, @Nullable DeliveryContext delivery, boolean acknowledgedAlone,
			Supplier<IdempotencyKey> key) {
		this.seen++;
		if (this.refusal != null) {
			return;
		}
		String refused = refusal(call, target, method, path, delivery, acknowledgedAlone);
		if (refused != null) {
			this.refusal = refused;
			return;
		}
		IdempotencyKey resolved;
		try {
			resolved = key.get();
		}
		catch (RuntimeException ex) {
			// The record path rejects it, with its outcome and its dead letter.
			this.refusal = "the key of message " + this.calls.size() + " could not be resolved: " + ex.getMessage();
			return;
		}
		this.interceptor = interceptor;
		this.target = target;
		this.method = method;
		this.path = path;
		this.calls.add(new Call(((ProxyMethodInvocation) call).invocableClone(), resolved, delivery));
	}

	private @Nullable String refusal(MethodInvocation call, Object target, IdempotentMethod method, ClaimPath path,
			@Nullable DeliveryContext delivery, boolean acknowledgedAlone) {
		String name = method.fallbackNamespace();
		if (this.method != null && (this.method != method || this.target != target)) {
			return "calls of more than one @Idempotent method (" + this.method.fallbackNamespace() + ", " + name + ")";
		}
		if (!(call instanceof ProxyMethodInvocation)) {
			return name + " is not called through a Spring AOP proxy";
		}
		if (delivery != null && delivery.isBatch()) {
			return name + " receives a batch of messages in one call";
		}
		if (call.getMethod().getReturnType() != void.class) {
			return name + " returns a value, which one transaction for many messages cannot give back";
		}
		if (method.recordsKeyDetails()) {
			return name + " records a fingerprint or its result with its key";
		}
		if (acknowledgedAlone) {
			return name + " acknowledges each message itself";
		}
		if (path.leased() || path.transactionManager() == null || !path.store().isTransactional()) {
			return name + " is not claimed in the business transaction (leased mode or no transaction manager): "
					+ "a rollback would not undo the work of the messages before a failure";
		}
		return null;
	}

	List<Call> calls() {
		return this.calls;
	}

	Object target() {
		Assert.state(this.target != null, "Nothing collected");
		return this.target;
	}

	IdempotentMethod method() {
		Assert.state(this.method != null, "Nothing collected");
		return this.method;
	}

	ClaimPath path() {
		Assert.state(this.path != null, "Nothing collected");
		return this.path;
	}

	/**
	 * One collected call.
	 * @param invocation the call, to proceed once its key is claimed
	 * @param key its key
	 * @param delivery its message, bound while it runs
	 */
	record Call(MethodInvocation invocation, IdempotencyKey key, @Nullable DeliveryContext delivery) {

	}

}
