package dev.idempotency.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.ClaimResult;
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
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;

/**
 * One call of an {@code @Idempotent} method for one message, from its key to its outcome:
 * <ol>
 * <li>resolve the key (a failure is {@code REJECTED}: retrying cannot fix it);</li>
 * <li>in an {@link InvocationTransaction}: claim the key; a duplicate skips the method (or throws
 * {@link DuplicateMessageException}), a key in progress elsewhere throws
 * {@link IdempotencyInProgressException}, a fresh claim runs the method;</li>
 * <li>after commit: complete a leased claim and acknowledge the delivery; after a rollback: release
 * it.</li>
 * </ol>
 * A method with a fingerprint expression or {@link OnDuplicate#RETURN_PREVIOUS} also records details
 * with its key: the payload's fingerprint once claimed, before the method runs; its serialized
 * result after the method returned, before commit (before completion when leased). A duplicate then
 * asks the store what was recorded: a different fingerprint is a conflict
 * ({@link IdempotencyKeyConflictException}, never acknowledged), and a stored result is returned.
 * Such a method is never answered by the duplicate filters, which know keys but not their details.
 * Its inputs are fixed when it is created; only the invocation itself records its keys, claims and
 * outcomes. {@link BatchInvocation} does the same for each message of a batch. The listeners hear
 * one outcome per key from {@link #report}, once the transaction has completed, and a key that
 * could not be resolved from {@link #rejected}, as it is thrown; the call's observation, if one was
 * started ({@link #observe}), is stopped there too, or by {@link #returned} when the call ended
 * without reporting. Not thread-safe: one instance per call, used on the calling thread.
 *
 * @since 0.2.0
 */
class IdempotentInvocation implements InvocationTransaction.Participant {

	// The interceptor's category, so that existing logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(IdempotencyInterceptor.class);

	private static final @Nullable IdempotencyOutcome[] NO_OUTCOMES = new IdempotencyOutcome[0];

	final MethodInvocation call;

	final Object target;

	final IdempotentMethod method;

	private final @Nullable DeliveryContext delivery;

	final IdempotencyStore store;

	private final ClaimPath path;

	private final boolean leased;

	private final boolean renewLeases;

	private final boolean countDuplicates;

	final String namespace;

	final Duration lease;

	final Duration retention;

	private final @Nullable MessageAcknowledger acknowledger;

	private final Supplier<List<IdempotencyListener>> listeners;

	private final ClaimGuards guards;

	private final KeyDetailsSupport keyDetails;

	private final long started;

	private List<DuplicateFilterChain.Verdict> verdicts = List.of();

	private List<IdempotencyKey> keys = List.of();

	private List<ClaimResult> claims = List.of();

	private @Nullable IdempotencyOutcome[] outcomes = NO_OUTCOMES;

	private boolean acknowledge;

	private @Nullable String fingerprint;

	private ObservedInvocation observed = ObservedInvocation.NONE;

	private boolean reported;

	private boolean reportsLater;

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
	 */
	IdempotentInvocation(MethodInvocation call, Object target, IdempotentMethod method,
			@Nullable DeliveryContext delivery, ClaimPath path, @Nullable MessageAcknowledger acknowledger,
			IdempotencyDefaults defaults, Supplier<List<IdempotencyListener>> listeners, ClaimGuards guards,
			KeyDetailsSupport keyDetails, long started) {
		this.call = call;
		this.target = target;
		this.method = method;
		this.delivery = delivery;
		this.store = path.store();
		this.path = path;
		this.leased = path.leased();
		this.renewLeases = defaults.renewLeases();
		this.countDuplicates = defaults.countDuplicates();
		this.namespace = method.namespaceFor(delivery);
		this.lease = (method.lease() != null) ? method.lease() : defaults.lease();
		this.retention = (method.retention() != null) ? method.retention() : defaults.retention();
		this.acknowledger = acknowledger;
		this.listeners = listeners;
		this.guards = guards;
		this.keyDetails = keyDetails;
		this.started = started;
	}

	/**
	 * Starts observing this call.
	 * @param observer the interceptor's observer
	 * @return the started observation; {@link ObservedInvocation#NONE} when nothing observes
	 */
	ObservedInvocation observe(InvocationObserver observer) {
		this.observed = observer.start(this.namespace, this.store.name(), this.call.getMethod());
		return this.observed;
	}

	/**
	 * The outcomes are reported when a transaction this call joined completes, after the call has
	 * returned.
	 */
	@Override
	public void reportsLater() {
		this.reportsLater = true;
	}

	/**
	 * The intercepted call has returned or thrown: stops the observation unless the outcomes were
	 * reported (which stopped it) or will be, at the completion of a joined transaction.
	 * @param failure the exception the call threw, or {@code null}
	 */
	void returned(@Nullable Throwable failure) {
		if (!this.reported && !this.reportsLater) {
			this.observed.stop(this.keys, List.of(), failure);
		}
	}

	/**
	 * Runs the call: resolves its keys, then claims and proceeds in a transaction.
	 * @param keyResolver resolves the keys
	 * @param transactionTimeout timeout of a transaction this call opens; zero for the manager's
	 * default
	 * @return the method's result, or the skipped value when it did not run
	 * @throws Throwable the method's exception, or one of the exceptions named in the class
	 * description
	 */
	@Nullable Object run(KeyResolver keyResolver, Duration transactionTimeout) throws Throwable {
		try {
			this.keys = resolveKeys(keyResolver);
			if (this.method.fingerprintExpression() != null) {
				this.fingerprint = fingerprint(this.method.fingerprintExpression());
			}
		}
		catch (InvalidIdempotencyKeyException ex) {
			throw rejected(ex);
		}
		this.outcomes = new IdempotencyOutcome[this.keys.size()];
		if (answeredByFilters()) {
			return skipWithoutTransaction();
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
			transaction.commit();
			return result;
		}
	}

	/** Asks the filters about every key; true when each key is known to have completed. */
	private boolean answeredByFilters() {
		DuplicateFilterChain filters = this.guards.filters();
		if (filters.filters().isEmpty() || this.method.recordsKeyDetails()) {
			return false;
		}
		List<DuplicateFilterChain.Verdict> verdicts = new ArrayList<>(this.keys.size());
		boolean allCompleted = true;
		for (IdempotencyKey key : this.keys) {
			DuplicateFilterChain.Verdict verdict = filters.check(key);
			verdicts.add(verdict);
			allCompleted &= verdict.completed();
		}
		this.verdicts = verdicts;
		return allCompleted && !this.keys.isEmpty();
	}

	/**
	 * A delivery whose keys a filter knows to have completed: a duplicate, acknowledged (or thrown
	 * for {@code onDuplicate = THROW}) without opening a transaction or asking the store.
	 */
	private @Nullable Object skipWithoutTransaction() {
		Arrays.fill(this.outcomes, IdempotencyOutcome.DUPLICATE);
		if (this.method.onDuplicate() == OnDuplicate.THROW) {
			DuplicateMessageException duplicate = new DuplicateMessageException(key(0));
			report(duplicate);
			throw duplicate;
		}
		try {
			if (acknowledgesAfterCommit() && this.acknowledger != null) {
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
			return this.guards.lock(this.keys, this.lease);
		}
		catch (IdempotencyInProgressException ex) {
			Arrays.fill(this.outcomes, IdempotencyOutcome.IN_PROGRESS);
			report(ex);
			throw ex;
		}
		catch (RuntimeException ex) {
			report(ex);
			throw ex;
		}
	}

	/**
	 * Resolves the keys to claim, in the namespace of this call.
	 * @param resolver the key resolver
	 * @return the keys, not empty
	 * @throws InvalidIdempotencyKeyException if no key can be resolved
	 */
	List<IdempotencyKey> resolveKeys(KeyResolver resolver) {
		return List.of(new IdempotencyKey(this.namespace, resolver.resolve(this.method.keyExpression(),
				this.call.getMethod(), this.call.getArguments(), this.target, this.delivery)));
	}

	/** The fingerprint of this delivery's payload. */
	private String fingerprint(String expression) {
		Object payload = this.keyDetails.expressions()
			.evaluatePayload(expression, this.call.getMethod(), this.call.getArguments(), this.target, this.delivery);
		return this.keyDetails.requireCodec(this.method)
			.fingerprints()
			.fingerprint(payload, expression, this.call.getMethod());
	}

	/** Claims the keys; one claim per key, in key order. */
	List<ClaimResult> claim() {
		return List.of(this.store.claim(key(0), this.lease, this.retention));
	}

	/** Runs the method, once at least one key was claimed now. */
	@Nullable Object proceed() throws Throwable {
		return this.call.proceed();
	}

	/** Whether the delivery is acknowledged after commit. */
	boolean acknowledgesAfterCommit() {
		return true;
	}

	/** The acknowledger that may complete the claim and acknowledge in one step, if any. */
	@Nullable CompletingAcknowledger completingAcknowledger() {
		// A completion in the transport's own script would leave the details' expiry at the lease.
		return (this.acknowledger instanceof CompletingAcknowledger completing && !this.method.recordsKeyDetails())
				? completing : null;
	}

	/**
	 * Claims every key, records an outcome per key and runs the method unless no key was claimed now.
	 * A key in progress elsewhere, or a duplicate under {@link OnDuplicate#THROW}, fails the call.
	 */
	private @Nullable Object claimAndProceed() throws Throwable {
		this.claims = claim();
		IdempotencyKey inProgress = null;
		IdempotencyKey duplicate = null;
		boolean claimedNow = false;
		for (int i = 0; i < this.claims.size(); i++) {
			IdempotencyOutcome outcome = switch (this.claims.get(i).status()) {
				case DUPLICATE -> IdempotencyOutcome.DUPLICATE;
				case IN_PROGRESS -> IdempotencyOutcome.IN_PROGRESS;
				case PARKED -> IdempotencyOutcome.PARKED;
				case CLAIMED -> IdempotencyOutcome.PROCESSED;
			};
			this.outcomes[i] = outcome;
			if (outcome == IdempotencyOutcome.PARKED) {
				// Waits for a person (ParkedKeys): acknowledged and counted, never dead-lettered.
				continue;
			}
			if (outcome == IdempotencyOutcome.DUPLICATE) {
				duplicate = (duplicate != null) ? duplicate : key(i);
				if (this.countDuplicates) {
					this.store.recordDuplicate(key(i));
				}
			}
			else if (outcome == IdempotencyOutcome.IN_PROGRESS) {
				inProgress = (inProgress != null) ? inProgress : key(i);
			}
			else {
				claimedNow = true;
				if (i < this.verdicts.size()) {
					this.guards.filters().falsePositive(this.verdicts.get(i));
				}
			}
		}
		if (inProgress != null) {
			throw new IdempotencyInProgressException(inProgress, this.lease);
		}
		RecordedKey recorded = (duplicate != null && this.method.recordsKeyDetails()) ? checkRecorded() : null;
		if (duplicate != null && this.method.onDuplicate() == OnDuplicate.THROW) {
			throw new DuplicateMessageException(duplicate);
		}
		Object result;
		if (claimedNow) {
			if (this.fingerprint != null) {
				this.store.recordFingerprint(key(0), this.claims.get(0), this.fingerprint);
			}
			try (LeaseHeartbeat heartbeat = heartbeat()) {
				result = proceed();
			}
			if (result != null && this.method.onDuplicate() == OnDuplicate.RETURN_PREVIOUS) {
				this.store.recordResult(key(0), this.claims.get(0),
						this.keyDetails.requireCodec(this.method).results().serialize(result, this.call.getMethod()));
			}
		}
		else if (recorded != null && recorded.result() != null
				&& this.method.onDuplicate() == OnDuplicate.RETURN_PREVIOUS) {
			result = this.keyDetails.requireCodec(this.method)
				.results()
				.deserialize(recorded.result(), this.call.getMethod(), this.target.getClass());
		}
		else {
			result = this.method.skippedValue();
		}
		this.acknowledge = acknowledgesAfterCommit();
		return result;
	}

	/**
	 * Reads what the store recorded with a duplicate key: a fingerprint that differs from this
	 * delivery's is a conflict; one recorded before fingerprints were (or without one) is not checked.
	 * @return the recorded details, or {@code null} if the key is gone
	 * @throws IdempotencyKeyConflictException if the fingerprints differ
	 */
	private @Nullable RecordedKey checkRecorded() {
		RecordedKey recorded = this.store.recorded(key(0));
		String previous = (recorded != null) ? recorded.fingerprint() : null;
		if (this.fingerprint != null && previous != null && !previous.equals(this.fingerprint)) {
			this.outcomes[0] = IdempotencyOutcome.CONFLICT;
			throw new IdempotencyKeyConflictException(key(0), previous, this.fingerprint);
		}
		return recorded;
	}

	/** Renews the leases of leased claims while the method runs, unless renewal is off. */
	private LeaseHeartbeat heartbeat() {
		return (this.leased && this.renewLeases) ? LeaseHeartbeat.start(this.store, this.keys, this.claims, this.lease)
				: LeaseHeartbeat.none();
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
			learnCommittedKeys();
		}
	}

	/** Teaches the filters the keys that are now known completed: processed here, or duplicates. */
	private void learnCommittedKeys() {
		DuplicateFilterChain filters = this.guards.filters();
		for (int i = 0; i < this.claims.size() && !filters.filters().isEmpty(); i++) {
			if (completes(i) || this.outcomes[i] == IdempotencyOutcome.DUPLICATE) {
				filters.learn(key(i));
			}
		}
	}

	private void completeAndAcknowledge() {
		CompletingAcknowledger completing = completingAcknowledger();
		if (this.acknowledge && completing != null && completes(0)
				&& completing.completeAndAcknowledge(this.store, key(0), this.claims.get(0), this.retention)) {
			return;
		}
		for (int i = 0; i < this.claims.size(); i++) {
			if (completes(i)) {
				complete(i);
			}
		}
		if (this.acknowledge && this.acknowledger != null) {
			this.acknowledger.acknowledge();
		}
	}

	/**
	 * After the transaction completed: unless it committed, every key not settled otherwise failed,
	 * and after a rollback the claims made now are released.
	 * @param status a {@link TransactionSynchronization} completion status
	 */
	@Override
	public void afterCompletion(int status) {
		if (status == TransactionSynchronization.STATUS_COMMITTED) {
			return;
		}
		for (int i = 0; i < this.keys.size(); i++) {
			if (status == TransactionSynchronization.STATUS_ROLLED_BACK && i < this.claims.size()) {
				// Unknown outcome: the work may have committed, so keep the claim until its lease ends.
				release(i);
			}
			if (this.outcomes[i] == null || this.outcomes[i] == IdempotencyOutcome.PROCESSED) {
				this.outcomes[i] = IdempotencyOutcome.FAILED;
			}
		}
	}

	/**
	 * Tells the listeners the outcome of each key, once the transaction has completed; a batch's
	 * time is shared out among its messages.
	 * @param failure the exception the call ended with, or {@code null}
	 */
	@Override
	public void report(@Nullable Throwable failure) {
		this.reported = true;
		int count = this.keys.size();
		long nanos = (System.nanoTime() - this.started) / count;
		for (int i = 0; i < count; i++) {
			publish(key(i), (this.outcomes[i] != null) ? this.outcomes[i] : IdempotencyOutcome.FAILED, nanos,
					failure);
		}
		if (this.observed != ObservedInvocation.NONE) {
			List<IdempotencyOutcome> reportedOutcomes = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				reportedOutcomes.add((this.outcomes[i] != null) ? this.outcomes[i] : IdempotencyOutcome.FAILED);
			}
			this.observed.stop(this.keys, reportedOutcomes, failure);
		}
	}

	/**
	 * Tells the listeners that a message was refused because its key could not be resolved.
	 * @param rejection the key's failure
	 * @return {@code rejection}, to be thrown
	 */
	InvalidIdempotencyKeyException rejected(InvalidIdempotencyKeyException rejection) {
		this.reported = true;
		publish(null, IdempotencyOutcome.REJECTED, System.nanoTime() - this.started, rejection);
		this.observed.stop(List.of(), List.of(IdempotencyOutcome.REJECTED), rejection);
		return rejection;
	}

	private void publish(@Nullable IdempotencyKey key, IdempotencyOutcome outcome, long nanos,
			@Nullable Throwable failure) {
		IdempotencyEventPublisher.publish(this.listeners.get(), this.namespace, key, outcome, this.store.name(),
				nanos, failure);
	}

	IdempotencyKey key(int index) {
		return this.keys.get(index);
	}

	List<IdempotencyKey> keys() {
		return this.keys;
	}

	@Nullable IdempotencyOutcome outcome(int index) {
		return this.outcomes[index];
	}

	private boolean completes(int index) {
		return this.outcomes[index] == IdempotencyOutcome.PROCESSED && this.claims.get(index).isClaimed();
	}

	private void complete(int index) {
		try {
			this.store.complete(key(index), this.claims.get(index), this.retention);
		}
		catch (RuntimeException ex) {
			// The business transaction is committed; not acknowledging would only let the lease
			// expire and the message run again.
			logger.error("Could not mark " + key(index) + " completed in store '" + this.store.name()
					+ "' after commit; it stays claimed until its lease expires", ex);
		}
	}

	private void release(int index) {
		if (!this.claims.get(index).isClaimed()) {
			return;
		}
		try {
			this.store.release(key(index), this.claims.get(index));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release claim of " + key(index) + " in store '" + this.store.name()
					+ "'; it is retried after its lease expires", ex);
		}
	}

}
