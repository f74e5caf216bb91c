package dev.idempotency.support;

import java.lang.reflect.Method;
import java.time.Duration;
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

	private final Supplier<@Nullable PlatformTransactionManager> transactionManager;

	private final Supplier<List<IdempotencyListener>> listeners;

	private final StringValueResolver placeholders;

	private final Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers;

	private final Map<MethodClassKey, IdempotentMethod> methods = new ConcurrentHashMap<>(64);

	/**
	 * Creates an interceptor; collaborators are looked up lazily, at the first invocation.
	 * @param defaults retention and lease for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManager the transaction manager, or a supplier of {@code null} when there is
	 * none (only non-transactional stores then work)
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, Supplier<@Nullable PlatformTransactionManager> transactionManager,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders) {
		this(defaults, keyResolver, stores, transactionManager, listeners, placeholders, List::of);
	}

	/**
	 * Creates an interceptor that also acknowledges through handles found among the arguments.
	 * @param defaults retention and lease for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManager the transaction manager, or a supplier of {@code null}
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @param acknowledgerResolvers find an acknowledgement handle among the arguments (such as Kafka's
	 * {@code Acknowledgment}) when the delivery context has no acknowledger
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, Supplier<@Nullable PlatformTransactionManager> transactionManager,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders,
			Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers) {
		this.acknowledgerResolvers = acknowledgerResolvers;
		this.defaults = defaults;
		this.keyResolver = keyResolver;
		this.stores = stores;
		this.transactionManager = transactionManager;
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
		try {
			attempt.key = new IdempotencyKey(attempt.namespace, this.keyResolver.resolve(metadata.keyExpression(),
					method, invocation.getArguments(), target, delivery));
		}
		catch (InvalidIdempotencyKeyException ex) {
			attempt.outcome = IdempotencyOutcome.REJECTED;
			attempt.finish(ex);
			throw ex;
		}
		attempt.retention = (metadata.retention() != null) ? metadata.retention() : this.defaults.retention();
		PlatformTransactionManager transactionManager = this.transactionManager.get();
		if (transactionManager == null) {
			return invokeWithoutTransaction(invocation, metadata, attempt);
		}
		return invokeInTransaction(invocation, metadata, attempt, transactionManager);
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

	private static String namespace(IdempotentMethod metadata, @Nullable DeliveryContext delivery) {
		if (metadata.namespace() != null) {
			return metadata.namespace();
		}
		if (delivery != null && delivery.namespace() != null && !delivery.namespace().isBlank()) {
			return delivery.namespace();
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
		IdempotencyKey key = attempt.key();
		ClaimResult claim = attempt.store.claim(key, this.defaults.lease(), attempt.retention);
		attempt.claim = claim;
		switch (claim.status()) {
			case DUPLICATE -> {
				attempt.outcome = IdempotencyOutcome.DUPLICATE;
				if (metadata.onDuplicate() == OnDuplicate.THROW) {
					throw new DuplicateMessageException(key);
				}
				attempt.acknowledge = true;
				return metadata.skippedValue();
			}
			case IN_PROGRESS -> {
				attempt.outcome = IdempotencyOutcome.IN_PROGRESS;
				throw new IdempotencyInProgressException(key);
			}
			default -> {
				attempt.outcome = IdempotencyOutcome.PROCESSED;
				Object result = invocation.proceed();
				attempt.acknowledge = true;
				return result;
			}
		}
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
	 * when there is no transaction).
	 */
	private static final class Attempt implements TransactionSynchronization {

		private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
			.getLog(IdempotencyInterceptor.class);

		private final String namespace;

		private final IdempotencyStore store;

		private final @Nullable MessageAcknowledger acknowledger;

		private final long started;

		private final Supplier<List<IdempotencyListener>> listeners;

		private @Nullable IdempotencyKey key;

		private Duration retention = Duration.ZERO;

		private @Nullable ClaimResult claim;

		private @Nullable IdempotencyOutcome outcome;

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

		IdempotencyKey key() {
			if (this.key == null) {
				throw new IllegalStateException("key not resolved");
			}
			return this.key;
		}

		@Override
		public void afterCommit() {
			boolean completes = this.outcome == IdempotencyOutcome.PROCESSED && this.claim != null
					&& this.claim.isClaimed();
			if (completes && this.acknowledge && this.acknowledger instanceof CompletingAcknowledger completing
					&& completing.completeAndAcknowledge(this.store, key(), this.claim, this.retention)) {
				return;
			}
			if (completes) {
				try {
					this.store.complete(key(), this.claim, this.retention);
				}
				catch (RuntimeException ex) {
					// The business transaction is committed; not acknowledging would only let the
					// lease expire and the message run again.
					logger.error("Could not mark " + this.key + " completed in store '" + this.store.name()
							+ "' after commit; it stays claimed until its lease expires", ex);
				}
			}
			if (this.acknowledge && this.acknowledger != null) {
				this.acknowledger.acknowledge();
			}
		}

		@Override
		public void afterCompletion(int status) {
			if (status != STATUS_COMMITTED) {
				if (status == STATUS_ROLLED_BACK) {
					// Unknown outcome: the work may have committed, so keep the claim until its lease ends.
					releaseClaim();
				}
				if (this.outcome == null || this.outcome == IdempotencyOutcome.PROCESSED) {
					this.outcome = IdempotencyOutcome.FAILED;
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

		private void releaseClaim() {
			if (this.claim == null || !this.claim.isClaimed()) {
				return;
			}
			try {
				this.store.release(key(), this.claim);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not release claim of " + this.key + " in store '" + this.store.name()
						+ "'; it is retried after its lease expires", ex);
			}
		}

		void finish(@Nullable Throwable failure) {
			IdempotencyOutcome finalOutcome = (this.outcome != null) ? this.outcome : IdempotencyOutcome.FAILED;
			IdempotencyEventPublisher.publish(this.listeners.get(), this.namespace, this.key, finalOutcome,
					this.store.name(), System.nanoTime() - this.started, failure);
		}

	}

}
