package dev.idempotency.support;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.ArgumentAcknowledgerResolver;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.CompletingAcknowledger;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.DuplicateMessageException;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotentBatchFailedException;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.KeyResolver;
import dev.idempotency.core.MessageAcknowledger;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.StringValueResolver;

/**
 * Runs an {@code @Idempotent} method at most once per key in effect.
 * <ol>
 * <li>Resolve the key (a failure is {@code REJECTED}: retrying cannot fix it).</li>
 * <li>Open or join a transaction with the application's transaction manager.</li>
 * <li>Claim the key in the store, inside that transaction.</li>
 * <li>Duplicate: skip the method (or throw {@link DuplicateMessageException}). In progress
 * elsewhere: throw {@link IdempotencyInProgressException} so the delivery is retried.</li>
 * <li>Claimed: run the method; an exception rolls the transaction back, with the claim.</li>
 * <li>After commit, on this thread: complete leased claims, acknowledge the delivery. After
 * completion: release leased claims that did not commit, tell the listeners.</li>
 * </ol>
 * The delivery is acknowledged from {@link TransactionSynchronization#afterCommit()}, never from
 * {@code afterCompletion}: a commit whose outcome is unknown acknowledges nothing.
 *
 * @since 0.1.0
 */
public class IdempotencyInterceptor implements MethodInterceptor {

	private final IdempotencyDefaults defaults;

	private final KeyResolver keyResolver;

	private final IdempotencyStoreResolver stores;

	private final IdempotencyTransactionManagerResolver transactionManagers;

	private final Supplier<List<IdempotencyListener>> listeners;

	private final StringValueResolver placeholders;

	private final Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers;

	private final Map<MethodClassKey, IdempotentMethod> methods = new ConcurrentHashMap<>(64);

	/**
	 * Creates an interceptor; collaborators are looked up lazily, at the first invocation.
	 * @param defaults retention and lease for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManagers the transaction manager of a store's methods, or {@code null} when
	 * there is none (only non-transactional stores then work)
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, IdempotencyTransactionManagerResolver transactionManagers,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders) {
		this(defaults, keyResolver, stores, transactionManagers, listeners, placeholders, List::of);
	}

	/**
	 * Creates an interceptor that also acknowledges through handles found among the arguments.
	 * @param defaults retention and lease for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManagers the transaction manager of a store's methods, or {@code null}
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @param acknowledgerResolvers find an acknowledgement handle among the arguments (such as Kafka's
	 * {@code Acknowledgment}) when the delivery context has no acknowledger
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, IdempotencyTransactionManagerResolver transactionManagers,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders,
			Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers) {
		this.acknowledgerResolvers = acknowledgerResolvers;
		this.defaults = defaults;
		this.keyResolver = keyResolver;
		this.stores = stores;
		this.transactionManagers = transactionManagers;
		this.listeners = listeners;
		this.placeholders = placeholders;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		long started = System.nanoTime();
		Object target = invocation.getThis();
		if (target == null) {
			throw new IllegalStateException("@Idempotent needs a target object; static methods are not supported");
		}
		Method method = invocation.getMethod();
		IdempotentMethod metadata = metadata(method, AopUtils.getTargetClass(target));
		DeliveryContext delivery = DeliveryContextHolder.current();
		IdempotencyStore store = this.stores.resolve(metadata.storeName());
		Attempt attempt = new Attempt(namespace(metadata, delivery), store,
				acknowledger(delivery, invocation.getArguments()), started, this.listeners);
		List<?> batch = batch(metadata, invocation.getArguments(), delivery);
		attempt.batch = batch != null;
		try {
			attempt.keys = (batch != null) ? batchKeys(metadata, invocation, target, delivery, batch, attempt)
					: List.of(new IdempotencyKey(attempt.namespace, this.keyResolver.resolve(metadata.keyExpression(),
							method, invocation.getArguments(), target, delivery)));
		}
		catch (InvalidIdempotencyKeyException ex) {
			attempt.rejected(ex);
			throw ex;
		}
		if (batch != null && attempt.keys.size() < batch.size()) {
			// A message's key failed: process the ones before it, then let the transport commit up
			// to it, dead-letter it and redeliver the rest.
			invocation.getArguments()[metadata.batchParameter()] = new ArrayList<>(batch.subList(0,
					attempt.keys.size()));
		}
		attempt.retention = (metadata.retention() != null) ? metadata.retention() : this.defaults.retention();
		attempt.lease = (metadata.lease() != null) ? metadata.lease() : this.defaults.lease();
		PlatformTransactionManager transactionManager = this.transactionManagers.resolve(store);
		Object result = (transactionManager != null)
				? invokeInTransaction(invocation, metadata, attempt, transactionManager)
				: invokeWithoutTransaction(invocation, metadata, attempt);
		if (attempt.rejection != null) {
			attempt.rejected(attempt.rejection);
			throw attempt.rejection;
		}
		return result;
	}

	/** The batch in the method's {@code List} parameter, if the delivery is a batch. */
	private static @Nullable List<?> batch(IdempotentMethod metadata, @Nullable Object[] args,
			@Nullable DeliveryContext delivery) {
		if (delivery == null || !delivery.isBatch()) {
			return null;
		}
		if (metadata.batchParameter() < 0 || !(args[metadata.batchParameter()] instanceof List<?> batch)) {
			throw new IllegalStateException("@Idempotent " + metadata.fallbackNamespace() + " is called with a batch "
					+ "of messages but has no List parameter to receive it");
		}
		if (batch.size() != delivery.elements().size()) {
			throw new IllegalStateException("@Idempotent " + metadata.fallbackNamespace() + " received a list of "
					+ batch.size() + " elements for a batch of " + delivery.elements().size() + " messages");
		}
		return batch;
	}

	/**
	 * Resolves each message's key: the key expression sees the element as {@code #element} and in
	 * place of the list parameter, and the message's own variables ({@code #record}, ...). Stops at
	 * the first message whose key fails, keeping the keys before it and remembering the failure.
	 */
	private List<IdempotencyKey> batchKeys(IdempotentMethod metadata, MethodInvocation invocation, Object target,
			DeliveryContext delivery, List<?> batch, Attempt attempt) {
		List<IdempotencyKey> keys = new ArrayList<>(batch.size());
		for (int i = 0; i < batch.size(); i++) {
			Object element = batch.get(i);
			Object[] args = invocation.getArguments().clone();
			args[metadata.batchParameter()] = element;
			DeliveryContext message = delivery.elements().get(i);
			Map<String, Object> variables = new LinkedHashMap<>(message.variables());
			if (element != null) {
				variables.put("element", element);
			}
			try {
				keys.add(new IdempotencyKey(attempt.namespace, this.keyResolver.resolve(metadata.keyExpression(),
						invocation.getMethod(), args, target,
						new DeliveryContext(message.messageId(), message.namespace(), variables, null))));
			}
			catch (InvalidIdempotencyKeyException ex) {
				InvalidIdempotencyKeyException rejection = new InvalidIdempotencyKeyException(
						ex.getMessage() + " (message " + i + " of a batch of " + batch.size() + ")", ex, i);
				if (i == 0) {
					throw rejection;
				}
				attempt.rejection = rejection;
				break;
			}
		}
		return keys;
	}

	private IdempotentMethod metadata(Method method, Class<?> targetClass) {
		return this.methods.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> IdempotentMethod.of(AopUtils.getMostSpecificMethod(method, targetClass), targetClass,
						this.placeholders));
	}

	private @Nullable MessageAcknowledger acknowledger(@Nullable DeliveryContext delivery, @Nullable Object[] args) {
		if (delivery != null && delivery.acknowledger() != null) {
			return delivery.acknowledger();
		}
		for (ArgumentAcknowledgerResolver resolver : this.acknowledgerResolvers.get()) {
			MessageAcknowledger acknowledger = resolver.resolve(args);
			if (acknowledger != null) {
				return acknowledger;
			}
		}
		return null;
	}

	/**
	 * The annotation's namespace, else one that identifies the listener method: the delivery's
	 * (its consumer group) followed by {@code SimpleClassName#method}, so that two methods never
	 * share keys because they share a group (a global {@code spring.kafka.consumer.group-id}).
	 */
	private static String namespace(IdempotentMethod metadata, @Nullable DeliveryContext delivery) {
		if (metadata.namespace() != null) {
			return metadata.namespace();
		}
		if (delivery != null && delivery.namespace() != null && !delivery.namespace().isBlank()) {
			return delivery.namespace() + ":" + metadata.fallbackNamespace();
		}
		return metadata.fallbackNamespace();
	}

	private @Nullable Object invokeInTransaction(MethodInvocation invocation, IdempotentMethod metadata,
			Attempt attempt, PlatformTransactionManager transactionManager) throws Throwable {
		TransactionStatus transaction;
		try {
			transaction = transactionManager.getTransaction(transactionDefinition(metadata));
		}
		catch (RuntimeException | Error ex) {
			attempt.finish(ex);
			throw ex;
		}
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			transactionManager.rollback(transaction);
			IllegalStateException ex = new IllegalStateException("@Idempotent needs transaction synchronization to "
					+ "acknowledge after commit; the transaction manager has it switched off");
			attempt.finish(ex);
			throw ex;
		}
		// A transaction we opened is finished here, so a commit failure reaches the listeners; a
		// joined one is finished by its owner's completion.
		attempt.finishedByCaller = transaction.isNewTransaction();
		TransactionSynchronizationManager.registerSynchronization(attempt);
		Object result;
		try {
			result = claimAndProceed(invocation, metadata, attempt);
		}
		catch (Throwable ex) {
			attempt.failure = ex;
			rollback(transactionManager, transaction, ex);
			attempt.finishIfOwned();
			throw ex;
		}
		try {
			transactionManager.commit(transaction);
		}
		catch (RuntimeException | Error ex) {
			attempt.failure = ex;
			attempt.finishIfOwned();
			throw ex;
		}
		attempt.finishIfOwned();
		return result;
	}

	private static void rollback(PlatformTransactionManager transactionManager, TransactionStatus transaction,
			Throwable cause) {
		try {
			transactionManager.rollback(transaction);
		}
		catch (RuntimeException | Error ex) {
			// The listener's own exception decides retry or dead letter; keep it, attach this one.
			cause.addSuppressed(ex);
		}
	}

	private @Nullable Object invokeWithoutTransaction(MethodInvocation invocation, IdempotentMethod metadata,
			Attempt attempt) throws Throwable {
		if (attempt.store.isTransactional()) {
			IllegalStateException ex = new IllegalStateException("Store '" + attempt.store.name()
					+ "' claims keys inside the business transaction, but there is no PlatformTransactionManager");
			attempt.finish(ex);
			throw ex;
		}
		Object result;
		try {
			result = claimAndProceed(invocation, metadata, attempt);
		}
		catch (Throwable ex) {
			attempt.failure = ex;
			attempt.afterCompletion(TransactionSynchronization.STATUS_ROLLED_BACK);
			throw ex;
		}
		try {
			attempt.afterCommit();
		}
		finally {
			attempt.afterCompletion(TransactionSynchronization.STATUS_COMMITTED);
		}
		return result;
	}

	private @Nullable Object claimAndProceed(MethodInvocation invocation, IdempotentMethod metadata, Attempt attempt)
			throws Throwable {
		if (attempt.batch) {
			return claimAndProceedBatch(invocation, metadata, attempt);
		}
		IdempotencyKey key = attempt.key(0);
		ClaimResult claim = attempt.store.claim(key, attempt.lease, attempt.retention);
		attempt.claims = List.of(claim);
		switch (claim.status()) {
			case DUPLICATE -> {
				attempt.outcomes()[0] = IdempotencyOutcome.DUPLICATE;
				if (metadata.onDuplicate() == OnDuplicate.THROW) {
					throw new DuplicateMessageException(key);
				}
				attempt.acknowledge = true;
				return metadata.skippedValue();
			}
			case IN_PROGRESS -> {
				attempt.outcomes()[0] = IdempotencyOutcome.IN_PROGRESS;
				throw new IdempotencyInProgressException(key, attempt.lease);
			}
			default -> {
				attempt.outcomes()[0] = IdempotencyOutcome.PROCESSED;
				Object result = invocation.proceed();
				attempt.acknowledge = true;
				return result;
			}
		}
	}

	/**
	 * Claims every message of the batch at once and calls the method with only the messages claimed
	 * now. Any failure fails the whole batch: it is rolled back as one.
	 */
	private @Nullable Object claimAndProceedBatch(MethodInvocation invocation, IdempotentMethod metadata,
			Attempt attempt) throws Throwable {
		List<?> batch = (List<?>) invocation.getArguments()[metadata.batchParameter()];
		List<ClaimResult> claims = attempt.store.claimAll(attempt.keys, attempt.lease, attempt.retention);
		attempt.claims = claims;
		List<Object> fresh = new ArrayList<>(batch.size());
		IdempotencyKey inProgress = null;
		IdempotencyKey duplicate = null;
		for (int i = 0; i < claims.size(); i++) {
			switch (claims.get(i).status()) {
				case DUPLICATE -> {
					attempt.outcomes()[i] = IdempotencyOutcome.DUPLICATE;
					duplicate = (duplicate != null) ? duplicate : attempt.key(i);
				}
				case IN_PROGRESS -> {
					attempt.outcomes()[i] = IdempotencyOutcome.IN_PROGRESS;
					inProgress = (inProgress != null) ? inProgress : attempt.key(i);
				}
				default -> {
					attempt.outcomes()[i] = IdempotencyOutcome.PROCESSED;
					fresh.add(batch.get(i));
				}
			}
		}
		if (inProgress != null) {
			throw new IdempotencyInProgressException(inProgress, attempt.lease);
		}
		if (duplicate != null && metadata.onDuplicate() == OnDuplicate.THROW) {
			throw new DuplicateMessageException(duplicate);
		}
		Object result = null;
		if (!fresh.isEmpty()) {
			invocation.getArguments()[metadata.batchParameter()] = fresh;
			try {
				result = invocation.proceed();
			}
			catch (Throwable ex) {
				throw new IdempotentBatchFailedException("@Idempotent batch listener " + metadata.fallbackNamespace()
						+ " failed; its batch of " + batch.size() + " messages was rolled back as a whole", ex);
			}
		}
		else {
			result = metadata.skippedValue();
		}
		// After a rejected key the transport commits the messages before it itself.
		attempt.acknowledge = attempt.rejection == null;
		return result;
	}

	private DefaultTransactionDefinition transactionDefinition(IdempotentMethod metadata) {
		DefaultTransactionDefinition definition = new DefaultTransactionDefinition();
		definition.setName("@Idempotent " + metadata.fallbackNamespace());
		if ((!this.defaults.transactionTimeout().isNegative() && !this.defaults.transactionTimeout().isZero())) {
			definition.setTimeout((int) Math.max(1, this.defaults.transactionTimeout().toSeconds()));
		}
		return definition;
	}

	/**
	 * One invocation's state, finished by the transaction's synchronization callbacks (or directly
	 * when there is no transaction). A batch invocation has one key, claim and outcome per message.
	 */
	private static final class Attempt implements TransactionSynchronization {

		private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
			.getLog(IdempotencyInterceptor.class);

		private final String namespace;

		private final IdempotencyStore store;

		private final @Nullable MessageAcknowledger acknowledger;

		private final long started;

		private final Supplier<List<IdempotencyListener>> listeners;

		private boolean batch;

		private List<IdempotencyKey> keys = List.of();

		private Duration retention = Duration.ZERO;

		private Duration lease = Duration.ZERO;

		private List<ClaimResult> claims = List.of();

		private @Nullable IdempotencyOutcome @Nullable [] outcomes;

		private @Nullable InvalidIdempotencyKeyException rejection;

		private boolean acknowledge;

		private @Nullable Throwable failure;

		private boolean finishedByCaller;

		private boolean completed;

		Attempt(String namespace, IdempotencyStore store, @Nullable MessageAcknowledger acknowledger, long started,
				Supplier<List<IdempotencyListener>> listeners) {
			this.namespace = namespace;
			this.store = store;
			this.acknowledger = acknowledger;
			this.started = started;
			this.listeners = listeners;
		}

		IdempotencyKey key(int index) {
			return this.keys.get(index);
		}

		@Override
		public void afterCommit() {
			if (!this.batch && this.acknowledge && this.acknowledger instanceof CompletingAcknowledger completing
					&& completes(0) && completing.completeAndAcknowledge(this.store, key(0), this.claims.get(0),
							this.retention)) {
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

		private boolean completes(int index) {
			return outcome(index) == IdempotencyOutcome.PROCESSED && this.claims.get(index).isClaimed();
		}

		private void complete(int index) {
			try {
				this.store.complete(key(index), this.claims.get(index), this.retention);
			}
			catch (RuntimeException ex) {
				// The business transaction is committed; not acknowledging would only let the
				// lease expire and the message run again.
				logger.error("Could not mark " + key(index) + " completed in store '" + this.store.name()
						+ "' after commit; it stays claimed until its lease expires", ex);
			}
		}

		@Override
		public void afterCompletion(int status) {
			if (status != STATUS_COMMITTED) {
				for (int i = 0; i < this.keys.size(); i++) {
					if (status == STATUS_ROLLED_BACK && i < this.claims.size()) {
						// Unknown outcome: the work may have committed, so keep the claim until its lease ends.
						releaseClaim(i);
					}
					if (outcome(i) == null || outcome(i) == IdempotencyOutcome.PROCESSED) {
						outcomes()[i] = IdempotencyOutcome.FAILED;
					}
				}
			}
			this.completed = true;
			if (!this.finishedByCaller) {
				finish(this.failure);
			}
		}

		/** Tells the listeners, once the transaction this invocation opened has completed. */
		void finishIfOwned() {
			if (this.finishedByCaller && this.completed) {
				finish(this.failure);
			}
		}

		private void releaseClaim(int index) {
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

		private @Nullable IdempotencyOutcome[] outcomes() {
			if (this.outcomes == null) {
				this.outcomes = new IdempotencyOutcome[Math.max(1, this.keys.size())];
			}
			return this.outcomes;
		}

		private @Nullable IdempotencyOutcome outcome(int index) {
			return outcomes()[index];
		}

		/** The invocation was refused because a key could not be resolved. */
		void rejected(InvalidIdempotencyKeyException ex) {
			long nanos = System.nanoTime() - this.started;
			IdempotencyEventPublisher.publish(this.listeners.get(), this.namespace, null, IdempotencyOutcome.REJECTED,
					this.store.name(), nanos, ex);
		}

		/** Tells the listeners one outcome per message; a batch's time is shared out among its messages. */
		void finish(@Nullable Throwable failure) {
			int messages = Math.max(1, this.keys.size());
			long nanos = (System.nanoTime() - this.started) / messages;
			for (int i = 0; i < messages; i++) {
				IdempotencyOutcome outcome = (outcome(i) != null) ? outcome(i) : IdempotencyOutcome.FAILED;
				IdempotencyEventPublisher.publish(this.listeners.get(), this.namespace,
						(i < this.keys.size()) ? key(i) : null, outcome, this.store.name(), nanos, failure);
			}
		}

	}

}
