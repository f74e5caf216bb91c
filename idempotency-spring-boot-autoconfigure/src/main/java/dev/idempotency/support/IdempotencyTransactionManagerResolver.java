package dev.idempotency.support;

import dev.idempotency.core.IdempotencyStore;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.PlatformTransactionManager;

/**
 * Finds the transaction manager that runs the {@code @Idempotent} methods using a store.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface IdempotencyTransactionManagerResolver {

	/**
	 * Returns the transaction manager for methods that claim in {@code store}.
	 * @param store the method's store
	 * @return the transaction manager, or {@code null} to run without a transaction (only stores that
	 * are not transactional work then)
	 * @throws IdempotencyTransactionManagerException if no transaction manager can keep the store's
	 * claims in the business transaction
	 */
	@Nullable PlatformTransactionManager resolve(IdempotencyStore store);

	/**
	 * Whether the application has a transaction manager at all (or names one): without any, a
	 * transactional store's methods fall back to leased mode.
	 * @return {@code true} unless there is no transaction manager to choose from
	 * @since 0.2.0
	 */
	default boolean hasTransactionManagers() {
		return true;
	}

}
