package dev.idempotency.support;

import dev.idempotency.core.IdempotencyStore;

/**
 * Finds the store an {@code @Idempotent} method names.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface IdempotencyStoreResolver {

	/**
	 * Returns the store bean called {@code name}, or the default store when {@code name} is empty.
	 * @param name a bean name, or empty
	 * @return the store
	 * @throws IllegalStateException if there is no such store
	 */
	IdempotencyStore resolve(String name);

}
