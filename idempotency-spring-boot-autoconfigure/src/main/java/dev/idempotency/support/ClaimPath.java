package dev.idempotency.support;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.core.IdempotencyStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.PlatformTransactionManager;

/**
 * Where and how the keys of one {@code @Idempotent} method are claimed: the store of its
 * {@link IdempotencyMode mode}, and the transaction manager of the transaction the starter opens
 * around it ({@code null} for none).
 * <ul>
 * <li>{@code TRANSACTIONAL}: the configured store, which must claim in the transaction, and the
 * transaction manager that manages its resource.</li>
 * <li>{@code LEASED}: the store's {@linkplain IdempotencyStore#leased() leased} store and no
 * transaction: the method's side effects are outside any local transaction, and its own
 * {@code @Transactional} work commits before the key is marked completed.</li>
 * <li>{@code DEFAULT}: the store as configured (transactional for JDBC, leased for Redis, in the
 * application's transaction when there is one), except that a transactional store in an application
 * with no transaction manager at all falls back to its leased store. A transaction manager that
 * does not manage the store's resource still fails (DESIGN rule 9).</li>
 * </ul>
 *
 * @param store the store the keys are claimed in
 * @param transactionManager the transaction the starter opens, or {@code null}
 * @param leased whether the claims are leased (then renewed while the method runs)
 * @since 0.2.0
 */
public record ClaimPath(IdempotencyStore store, @Nullable PlatformTransactionManager transactionManager,
		boolean leased) {

	private static final Log logger = LogFactory.getLog(ClaimPath.class);

	/**
	 * Chooses the claim path of a method.
	 * @param stores finds the method's store
	 * @param transactionManagers finds the store's transaction manager
	 * @param storeName the store bean name, empty for the default store
	 * @param mode the method's mode
	 * @param methods the methods it is chosen for, for messages
	 * @return the path
	 * @throws IllegalStateException if the store cannot serve the mode
	 * @throws IdempotencyTransactionManagerException if transactional mode has no transaction manager
	 * that manages the store's resource
	 */
	public static ClaimPath choose(IdempotencyStoreResolver stores,
			IdempotencyTransactionManagerResolver transactionManagers, String storeName, IdempotencyMode mode,
			List<String> methods) {
		IdempotencyStore store = stores.resolve(storeName);
		return switch (mode) {
			case LEASED -> leased(store, mode, methods);
			case TRANSACTIONAL -> {
				if (!store.isTransactional()) {
					throw new IllegalStateException("@Idempotent(mode = TRANSACTIONAL) on " + String.join(", ", methods)
							+ " needs a store that claims keys in the business transaction, but store '" + store.name()
							+ "' is leased; use the JDBC store, or mode = LEASED");
				}
				yield new ClaimPath(store, transactionManagers.resolve(store), false);
			}
			case DEFAULT -> {
				if (store.isTransactional() && !transactionManagers.hasTransactionManagers()
						&& store.leased() != null) {
					logger.info("@Idempotent methods " + methods + " run in leased mode: store '" + store.name()
							+ "' claims keys in the business transaction, but the application has no "
							+ "PlatformTransactionManager. Add one (spring-boot-starter-jdbc does) for transactional "
							+ "mode, or set @Idempotent(mode = LEASED) to say so explicitly");
					yield leased(store, mode, methods);
				}
				yield new ClaimPath(store, transactionManagers.resolve(store), !store.isTransactional());
			}
		};
	}

	private static ClaimPath leased(IdempotencyStore store, IdempotencyMode mode, List<String> methods) {
		IdempotencyStore leased = store.leased();
		if (leased == null) {
			throw new IllegalStateException("@Idempotent(mode = " + mode + ") on " + String.join(", ", methods)
					+ " needs a leased store, but store '" + store.name() + "' has no leased mode");
		}
		return new ClaimPath(leased, null, true);
	}

	/** The claim paths of the methods seen so far; failures are thrown again, not cached. */
	static final class Cache {

		private final IdempotencyStoreResolver stores;

		private final IdempotencyTransactionManagerResolver transactionManagers;

		private final Map<IdempotentMethod, ClaimPath> paths = new ConcurrentHashMap<>();

		Cache(IdempotencyStoreResolver stores, IdempotencyTransactionManagerResolver transactionManagers) {
			this.stores = stores;
			this.transactionManagers = transactionManagers;
		}

		ClaimPath of(IdempotentMethod method) {
			ClaimPath path = this.paths.get(method);
			if (path == null) {
				path = choose(this.stores, this.transactionManagers, method.storeName(), method.mode(),
						List.of(method.fallbackNamespace()));
				this.paths.putIfAbsent(method, path);
			}
			return path;
		}

	}

}
