package dev.idempotency.support;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.CompletingAcknowledger;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DuplicateMessageException;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyConflictException;
import dev.idempotency.core.IdempotencyLock;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.InvocationObserver;
import dev.idempotency.core.KeyResolver;
import dev.idempotency.core.MessageAcknowledger;
import dev.idempotency.core.ObservedInvocation;
import dev.idempotency.core.RecordedKey;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * One call of an {@code @Idempotent} method, from its keys to their outcomes:
 * <ol>
 * <li>resolve the keys (a failure is {@code REJECTED}: retrying cannot fix it);</li>
 * <li>in an {@link InvocationTransaction}: claim the keys; a duplicate skips the method (or throws
 * {@link DuplicateMessageException}), a key in progress elsewhere throws
 * {@link IdempotencyInProgressException}, a fresh claim runs the method;</li>
 * <li>after commit: complete the leased claims and acknowledge the delivery; after a rollback:
 * release them.</li>
 * </ol>
 * A record and a batch run alike: what differs between them is the call's {@link InvocationKeys}.
 * The claims and their outcomes are kept in {@link InvocationClaims} and told once by
 * {@link InvocationReport}; what a method records with its key (a fingerprint, its result) is
 * {@link KeyDetailsRecorder}'s, and what the duplicate filters said is {@link FilterVerdicts}'. A
 * method that records details is never answered by the filters, which know keys but not details.
 * Not thread-safe: one instance per call, used on the calling thread.
 *
 * @since 0.2.0
 */
final class IdempotentInvocation implements InvocationTransaction.Participant {

	private final MethodInvocation call;

	private final IdempotentMethod method;

	private final ClaimPath path;

	private final boolean renewLeases;

	private final boolean countDuplicates;

	private final Duration lease;

	private final Duration retention;

	private final @Nullable MessageAcknowledger acknowledger;

	private final ClaimGuards guards;

	private final InvocationKeys keys;

	private final KeyDetailsRecorder details;

	private final FilterVerdicts filters;

	private final InvocationReport report;

	private InvocationClaims claims;

	private boolean acknowledge;

	/**
	 * Describes one call.
	 * @param call the intercepted call
	 * @param target the object the method is called on
	 * @param method the method's metadata
	 * @param delivery the current delivery, or {@code null} outside a transport adapter
	 * @param path where and how the keys are claimed
	 * @param acknowledger acknowledges the delivery after commit, or {@code null}
	 * @param defaults retention and lease when the annotation does not set them
	 * @param listeners told the outcomes
	 * @param guards the filters and lock in front of the store
	 * @param keyDetails fingerprints and stored results, for methods that record them
	 * @param started {@link System#nanoTime()} when the call was intercepted
	 * @param batched the calls of a {@link TransactionBatch} this invocation runs as one (then
	 * {@code call} and {@code delivery} are its first), or {@code null} for one call; a failed batch
	 * tells no outcome, since its messages run again one by one
	 * @throws IllegalStateException if a batch delivery cannot be received by the method (see
	 * {@link BatchKeys})
	 */
	IdempotentInvocation(MethodInvocation call, Object target, IdempotentMethod method,
			@Nullable DeliveryContext delivery, ClaimPath path, @Nullable MessageAcknowledger acknowledger,
			IdempotencyDefaults defaults, Supplier<List<IdempotencyListener>> listeners, ClaimGuards guards,
			KeyDetailsSupport keyDetails, long started, @Nullable List<TransactionBatch.Call> batched) {
		String namespace = method.namespaceFor(delivery);
		this.call = call;
		this.method = method;
		this.path = path;
		this.renewLeases = defaults.renewLeases();
		this.countDuplicates = defaults.countDuplicates();
		this.lease = (method.lease() != null) ? method.lease() : defaults.lease();
		this.retention = (method.retention() != null) ? method.retention() : defaults.retention();
		this.acknowledger = acknowledger;
		this.guards = guards;
		this.keys = (batched != null) ? new TransactionBatchKeys(batched)
				: InvocationKeys.of(call, target, method, delivery, namespace);
		this.details = new KeyDetailsRecorder(keyDetails, method, call, target, delivery, path.store());
		this.filters = new FilterVerdicts(guards.filters());
		this.report = new InvocationReport(listeners, namespace, path.store().name(), started, batched == null);
		this.claims = new InvocationClaims(path.store(), List.of());
	}

	/**
	 * Starts observing this call.
	 * @param observer the interceptor's observer
	 * @return the started observation; {@link ObservedInvocation#NONE} when nothing observes
	 */
	ObservedInvocation observe(InvocationObserver observer) {
		return this.report.observe(observer, this.call.getMethod());
	}

	/**
	 * The intercepted call has returned or thrown: stops the observation unless the outcomes were
	 * reported (which stopped it) or will be, at the completion of a joined transaction.
	 * @param failure the exception the call threw, or {@code null}
	 */
	void returned(@Nullable Throwable failure) {
		this.report.returned(this.claims.keys(), failure);
	}

	/**
	 * Runs the call: resolves its keys, then claims and proceeds in a transaction. A batch
	 * message's rejection parked by {@link InvocationKeys#resolve} is thrown once the messages
	 * before it are settled.
	 * @param keyResolver resolves the keys
	 * @param transactionTimeout timeout of a transaction this call opens; zero for the manager's
	 * default
	 * @return the method's result, or the skipped value when it did not run
	 * @throws Throwable the method's exception, or one of the exceptions named in the class
	 * description
	 */
	@Nullable Object run(KeyResolver keyResolver, Duration transactionTimeout) throws Throwable {
		InvocationKeys.Resolved resolved;
		try {
			resolved = this.keys.resolve(keyResolver);
			this.claims = new InvocationClaims(this.path.store(), resolved.keys());
			this.details.fingerprint();
		}
		catch (InvalidIdempotencyKeyException ex) {
			throw this.report.rejected(ex);
		}
		InvalidIdempotencyKeyException parked = resolved.parkedRejection();
		Object result = claimOrSkip(parked == null, transactionTimeout);
		if (parked != null) {
			throw this.report.rejected(parked);
		}
		return result;
	}

	/**
	 * Settles the resolved keys: by the filters alone when they know every key completed, else by
	 * claiming them in a transaction, under the lock if there is one.
	 * @param acknowledges whether the delivery is acknowledged once settled; after a parked
	 * rejection the transport settles the messages before it itself
	 */
	private @Nullable Object claimOrSkip(boolean acknowledges, Duration transactionTimeout) throws Throwable {
		if (!this.method.recordsKeyDetails() && this.filters.allCompleted(this.claims.keys())) {
			return skipWithoutTransaction(acknowledges);
		}
		try (IdempotencyLock.Held lock = lock()) {
			InvocationTransaction transaction = InvocationTransaction.begin(this, this.path,
					"@Idempotent " + this.method.fallbackNamespace(), transactionTimeout);
			Object result;
			try {
				result = claimAndProceed();
			}
			catch (Throwable ex) {
				transaction.rollback(ex);
				throw ex;
			}
			this.acknowledge = acknowledges;
			transaction.commit();
			return result;
		}
	}

	/**
	 * A delivery whose keys a filter knows to have completed: a duplicate, acknowledged (or thrown
	 * for {@code onDuplicate = THROW}) without opening a transaction or asking the store.
	 */
	private @Nullable Object skipWithoutTransaction(boolean acknowledges) {
		this.claims.settleAll(IdempotencyOutcome.DUPLICATE);
		if (this.method.onDuplicate() == OnDuplicate.THROW) {
			DuplicateMessageException duplicate = new DuplicateMessageException(this.claims.key(0));
			report(duplicate);
			throw duplicate;
		}
		try {
			if (acknowledges && this.acknowledger != null) {
				this.acknowledger.acknowledge();
			}
		}
		catch (RuntimeException ex) {
			report(ex);
			throw ex;
		}
		report(null);
		return this.method.skippedValue();
	}

	private IdempotencyLock.Held lock() {
		try {
			return this.guards.lock(this.claims.keys(), this.lease);
		}
		catch (IdempotencyInProgressException ex) {
			this.claims.settleAll(IdempotencyOutcome.IN_PROGRESS);
			report(ex);
			throw ex;
		}
		catch (RuntimeException ex) {
			report(ex);
			throw ex;
		}
	}

	/**
	 * Claims every key and runs the method unless no key was claimed now. A key in progress
	 * elsewhere, or a duplicate under {@link OnDuplicate#THROW}, fails the call.
	 */
	private @Nullable Object claimAndProceed() throws Throwable {
		IdempotencyStore store = this.path.store();
		this.claims.claimed(this.keys.claim(store, this.claims.keys(), this.lease, this.retention));
		boolean claimedNow = false;
		for (int i = 0; i < this.claims.claimCount(); i++) {
			IdempotencyOutcome outcome = this.claims.outcome(i);
			if (outcome == IdempotencyOutcome.DUPLICATE && this.countDuplicates) {
				store.recordDuplicate(this.claims.key(i));
			}
			else if (outcome == IdempotencyOutcome.PROCESSED) {
				claimedNow = true;
				this.filters.claimedNow(i);
			}
		}
		IdempotencyKey inProgress = this.claims.first(IdempotencyOutcome.IN_PROGRESS);
		if (inProgress != null) {
			throw new IdempotencyInProgressException(inProgress, this.lease);
		}
		IdempotencyKey duplicate = this.claims.first(IdempotencyOutcome.DUPLICATE);
		RecordedKey recorded = (duplicate != null) ? checkRecorded(duplicate) : null;
		if (duplicate != null && this.method.onDuplicate() == OnDuplicate.THROW) {
			throw new DuplicateMessageException(duplicate);
		}
		if (!claimedNow) {
			return this.details.skipped(recorded);
		}
		// Only a single key records details (batches refuse them): the fingerprint before the
		// method runs, its result after.
		this.details.claimed(this.claims.key(0), this.claims.claim(0));
		Object result;
		try (LeaseHeartbeat heartbeat = heartbeat()) {
			result = this.keys.proceed(this.claims);
		}
		this.details.returned(this.claims.key(0), this.claims.claim(0), result);
		return result;
	}

	/** What the store recorded with a duplicate key; a conflicting fingerprint fails the call. */
	private @Nullable RecordedKey checkRecorded(IdempotencyKey duplicate) {
		try {
			return this.details.duplicate(duplicate);
		}
		catch (IdempotencyKeyConflictException ex) {
			this.claims.settle(0, IdempotencyOutcome.CONFLICT);
			throw ex;
		}
	}

	/** Renews the leases of leased claims while the method runs, unless renewal is off. */
	private LeaseHeartbeat heartbeat() {
		if (!this.path.leased() || !this.renewLeases) {
			return LeaseHeartbeat.none();
		}
		return LeaseHeartbeat.start(this.path.store(), this.claims.keys(), this.claims.claims(), this.lease);
	}

	/**
	 * After commit, on the committing thread: completes the claims made now and acknowledges the
	 * delivery. A completing acknowledger is offered both in one step first.
	 */
	@Override
	public void afterCommit() {
		try {
			completeAndAcknowledge();
		}
		finally {
			this.filters.learnCommitted(this.claims);
		}
	}

	private void completeAndAcknowledge() {
		// A completion in the transport's own script would leave the details' expiry at the lease.
		if (this.acknowledge && this.keys.completesInOneStep() && !this.method.recordsKeyDetails()
				&& this.acknowledger instanceof CompletingAcknowledger completing && this.claims.completes(0)
				&& completing.completeAndAcknowledge(this.path.store(), this.claims.key(0), this.claims.claim(0),
						this.retention)) {
			return;
		}
		this.claims.completeClaimedNow(this.retention);
		if (this.acknowledge && this.acknowledger != null) {
			this.acknowledger.acknowledge();
		}
	}

	@Override
	public void afterCompletion(int status) {
		this.claims.afterCompletion(status);
	}

	@Override
	public void reportsLater() {
		this.report.reportsLater();
	}

	@Override
	public void report(@Nullable Throwable failure) {
		this.report.outcomes(this.claims, failure);
	}

}
