package dev.idempotency.support;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The transaction one {@link IdempotentInvocation} runs in, and the synchronization that finishes
 * the invocation: {@link #afterCommit()} completes its claims and acknowledges the delivery, on this
 * thread; {@link #afterCompletion(int)} settles the outcomes of a call that did not commit. It
 * knows the invocation only as a {@link Participant}.
 * <ul>
 * <li>With a transaction manager, a transaction is opened or the caller's joined. One this call
 * opened reports the outcomes when {@link #commit()} or {@link #rollback(Throwable)} returns, so a
 * commit failure reaches the listeners; a joined one reports them at its owner's completion.</li>
 * <li>Without one (a store that is not transactional), commit and rollback call the same two
 * callbacks directly, in the order a transaction manager would, and the outcomes are reported from
 * {@code afterCompletion}.</li>
 * </ul>
 * The delivery is acknowledged from {@code afterCommit}, never from {@code afterCompletion}: a commit
 * whose outcome is unknown acknowledges nothing.
 *
 * @since 0.2.0
 */
final class InvocationTransaction implements TransactionSynchronization {

	private final Participant invocation;

	private final @Nullable PlatformTransactionManager transactionManager;

	private final @Nullable TransactionStatus transaction;

	private final boolean reportsOnReturn;

	private boolean completed;

	private @Nullable Throwable failure;

	private InvocationTransaction(Participant invocation,
			@Nullable PlatformTransactionManager transactionManager, @Nullable TransactionStatus transaction) {
		this.invocation = invocation;
		this.transactionManager = transactionManager;
		this.transaction = transaction;
		this.reportsOnReturn = transaction != null && transaction.isNewTransaction();
		if (transaction != null && !this.reportsOnReturn) {
			invocation.reportsLater();
		}
	}

	/**
	 * Opens or joins a transaction for {@code invocation}, or goes without one.
	 * @param invocation the invocation to finish
	 * @param path the store and its transaction manager, {@code null} if there is none
	 * @param name the name of a transaction opened here
	 * @param timeout timeout of a transaction opened here; zero for the manager's default
	 * @return the transaction, registered for synchronization
	 * @throws IllegalStateException if the store needs a transaction and there is no manager, or the
	 * manager has synchronization switched off; reported as the invocation's outcome
	 */
	static InvocationTransaction begin(Participant invocation, ClaimPath path, String name, Duration timeout) {
		PlatformTransactionManager transactionManager = path.transactionManager();
		if (transactionManager == null) {
			if (path.store().isTransactional()) {
				throw failed(invocation, new IllegalStateException("Store '" + path.store().name()
						+ "' claims keys inside the business transaction, but there is no PlatformTransactionManager"));
			}
			return new InvocationTransaction(invocation, null, null);
		}
		TransactionStatus transaction;
		try {
			transaction = transactionManager.getTransaction(definition(name, timeout));
		}
		catch (RuntimeException | Error ex) {
			invocation.report(ex);
			throw ex;
		}
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			transactionManager.rollback(transaction);
			throw failed(invocation, new IllegalStateException("@Idempotent needs transaction synchronization to "
					+ "acknowledge after commit; the transaction manager has it switched off"));
		}
		InvocationTransaction invocationTransaction = new InvocationTransaction(invocation, transactionManager,
				transaction);
		TransactionSynchronizationManager.registerSynchronization(invocationTransaction);
		return invocationTransaction;
	}

	private static <T extends Throwable> T failed(Participant invocation, T failure) {
		invocation.report(failure);
		return failure;
	}

	private static DefaultTransactionDefinition definition(String name, Duration timeout) {
		DefaultTransactionDefinition definition = new DefaultTransactionDefinition();
		definition.setName(name);
		if (!timeout.isNegative() && !timeout.isZero()) {
			definition.setTimeout((int) Math.max(1, timeout.toSeconds()));
		}
		return definition;
	}

	/**
	 * Commits: the invocation's claims are completed and the delivery acknowledged.
	 * @throws RuntimeException if the commit or the acknowledgement failed
	 */
	void commit() {
		try {
			if (this.transactionManager != null && this.transaction != null) {
				this.transactionManager.commit(this.transaction);
			}
			else {
				try {
					afterCommit();
				}
				finally {
					afterCompletion(STATUS_COMMITTED);
				}
			}
		}
		catch (RuntimeException | Error ex) {
			this.failure = ex;
			reportIfOpenedHere();
			throw ex;
		}
		reportIfOpenedHere();
	}

	/**
	 * Rolls back after the invocation failed with {@code cause}; a joined transaction is only marked
	 * rollback-only. A failure to roll back is attached to {@code cause}, which decides retry or
	 * dead letter.
	 * @param cause the invocation's exception
	 */
	void rollback(Throwable cause) {
		this.failure = cause;
		if (this.transactionManager != null && this.transaction != null) {
			try {
				this.transactionManager.rollback(this.transaction);
			}
			catch (RuntimeException | Error ex) {
				cause.addSuppressed(ex);
			}
		}
		else {
			afterCompletion(STATUS_ROLLED_BACK);
		}
		reportIfOpenedHere();
	}

	@Override
	public void afterCommit() {
		this.invocation.afterCommit();
	}

	@Override
	public void afterCompletion(int status) {
		this.invocation.afterCompletion(status);
		this.completed = true;
		if (!this.reportsOnReturn) {
			this.invocation.report(this.failure);
		}
	}

	private void reportIfOpenedHere() {
		if (this.reportsOnReturn && this.completed) {
			this.invocation.report(this.failure);
		}
	}

	/** The invocation as its transaction sees it. */
	interface Participant {

		/** After commit, on the committing thread: completes the claims and acknowledges. */
		void afterCommit();

		/**
		 * The transaction has completed; unless it committed, the claims made now failed.
		 * @param status a {@link TransactionSynchronization} completion status
		 */
		void afterCompletion(int status);

		/**
		 * The transaction was joined: its outcomes are reported when its owner completes it, after
		 * the call has returned.
		 */
		void reportsLater();

		/**
		 * Tells the listeners the outcomes, once the transaction has completed.
		 * @param failure the exception the call ended with, or {@code null}
		 */
		void report(@Nullable Throwable failure);

	}

}
