package dev.idempotency.support;

import java.util.List;

import dev.idempotency.core.IdempotencyException;
import org.jspecify.annotations.Nullable;

/**
 * No transaction manager can keep a transactional store's claims in the business transaction: the
 * one configured (or the only one) does not manage the store's resource, or several exist and none
 * does. Raised at start-up, with what to configure.
 *
 * @since 0.2.0
 */
public class IdempotencyTransactionManagerException extends IdempotencyException {

	private final String storeName;

	private final String resource;

	private final @Nullable String configured;

	private final List<String> candidates;

	/**
	 * Creates the exception.
	 * @param storeName the store's name
	 * @param resource the store's transactional resource, described
	 * @param configured the transaction manager bean that was configured or found alone, or
	 * {@code null} when several exist and none was named
	 * @param candidates every transaction manager bean, with its type
	 */
	public IdempotencyTransactionManagerException(String storeName, String resource, @Nullable String configured,
			List<String> candidates) {
		super(message(storeName, resource, configured, candidates));
		this.storeName = storeName;
		this.resource = resource;
		this.configured = configured;
		this.candidates = List.copyOf(candidates);
	}

	private static String message(String storeName, String resource, @Nullable String configured,
			List<String> candidates) {
		String problem = (configured != null)
				? "transaction manager " + configured + " does not manage it"
				: (candidates.isEmpty() ? "there is no PlatformTransactionManager"
						: "none of the transaction managers " + candidates + " manages it");
		return "Store '" + storeName + "' claims keys in the transaction of " + resource + ", but " + problem
				+ "; its claims would commit on their own, and a failed message's retry would be skipped as a "
				+ "duplicate. For work that no database transaction covers, use @Idempotent(mode = LEASED)";
	}

	public String getStoreName() {
		return this.storeName;
	}

	public String getResource() {
		return this.resource;
	}

	/**
	 * The transaction manager that was configured, or found alone.
	 * @return its bean name and type, or {@code null} when several exist and none was named
	 */
	public @Nullable String getConfigured() {
		return this.configured;
	}

	/**
	 * Every transaction manager bean.
	 * @return bean names with their types
	 */
	public List<String> getCandidates() {
		return this.candidates;
	}

}
