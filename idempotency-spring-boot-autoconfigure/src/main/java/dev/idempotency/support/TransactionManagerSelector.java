package dev.idempotency.support;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.support.jdbc.DatabasePlatform;
import dev.idempotency.support.jdbc.DatabasePlatformHolder;
import dev.idempotency.support.jdbc.StartTransactionManagers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;
import org.springframework.util.StringUtils;

/**
 * Chooses, per store, the transaction manager of the {@code @Idempotent} methods that use it:
 * <ol>
 * <li>the bean named by {@code idempotency.transaction-manager}, if set;</li>
 * <li>else the only transaction manager;</li>
 * <li>else, among several (Spring Boot creates a {@code KafkaTransactionManager} beside the JDBC one
 * when Kafka transactions are on, neither primary), the one that manages the store's
 * {@linkplain IdempotencyStore#transactionalResource() resource}, or the primary one if several
 * do; a store without a resource gets the primary one, else the only one that manages a
 * {@code DataSource}, else none.</li>
 * </ol>
 * A transactional store whose chosen manager does not manage its resource, or for which none is
 * found, is an {@link IdempotencyTransactionManagerException}. Choices are made once per store and
 * logged when several managers existed.
 * <p>
 * With {@code startTransaction}, a store on a MySQL or MariaDB {@code DataSource} whose chosen
 * manager is Spring's {@code DataSourceTransactionManager} or {@code JdbcTransactionManager} gets a
 * copy of that manager for the transactions the interceptor opens, one that begins with
 * {@code START TRANSACTION} on a connection in auto-commit mode instead of switching auto-commit off
 * and on ({@link StartTransactionManagers}); the method's work on the {@code DataSource} joins it as
 * before, and the application's other transactions keep its manager. The platform is the store's
 * own if it is a {@link DatabasePlatformHolder} (the JDBC store's dialect), else read from the
 * {@code DataSource}.
 *
 * @since 0.2.0
 */
public class TransactionManagerSelector implements IdempotencyTransactionManagerResolver {

	private static final Log logger = LogFactory.getLog(TransactionManagerSelector.class);

	private final ConfigurableListableBeanFactory beanFactory;

	private final @Nullable String configuredName;

	private final boolean startTransaction;

	private final Map<IdempotencyStore, Choice> choices = new ConcurrentHashMap<>();

	/**
	 * Creates a selector that hands out the chosen managers themselves.
	 * @param beanFactory where the transaction managers are
	 * @param configuredName the bean name set by {@code idempotency.transaction-manager}, or
	 * {@code null}
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link
	 * #TransactionManagerSelector(ConfigurableListableBeanFactory, String, boolean)} with {@code false}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public TransactionManagerSelector(ConfigurableListableBeanFactory beanFactory, @Nullable String configuredName) {
		this(beanFactory, configuredName, false);
	}

	/**
	 * Creates a selector.
	 * @param beanFactory where the transaction managers are
	 * @param configuredName the bean name set by {@code idempotency.transaction-manager}, or
	 * {@code null}
	 * @param startTransaction whether transactions on a MySQL or MariaDB store begin with
	 * {@code START TRANSACTION} (set by {@code idempotency.start-transaction})
	 * @since 0.2.0
	 */
	public TransactionManagerSelector(ConfigurableListableBeanFactory beanFactory, @Nullable String configuredName,
			boolean startTransaction) {
		this.beanFactory = beanFactory;
		this.configuredName = StringUtils.hasText(configuredName) ? configuredName.trim() : null;
		this.startTransaction = startTransaction;
	}

	@Override
	public @Nullable PlatformTransactionManager resolve(IdempotencyStore store) {
		return choose(store).transactionManager();
	}

	@Override
	public boolean hasTransactionManagers() {
		return this.configuredName != null
				|| this.beanFactory.getBeanNamesForType(PlatformTransactionManager.class).length > 0;
	}

	/**
	 * Chooses the transaction manager for methods that claim in {@code store}.
	 * @param store the store
	 * @return the choice, with the manager's bean name
	 * @throws IdempotencyTransactionManagerException if a transactional store gets no manager that
	 * manages its resource
	 */
	public Choice choose(IdempotencyStore store) {
		Choice choice = this.choices.get(store);
		if (choice == null) {
			// Not computeIfAbsent: a failed choice is thrown again, not cached.
			choice = forInterceptor(store, select(store));
			this.choices.putIfAbsent(store, choice);
		}
		return choice;
	}

	private Choice select(IdempotencyStore store) {
		Object resource = store.transactionalResource();
		if (this.configuredName != null) {
			return checked(store, resource, this.configuredName, "idempotency.transaction-manager");
		}
		List<String> names = Arrays.asList(this.beanFactory.getBeanNamesForType(PlatformTransactionManager.class));
		if (names.size() == 1) {
			return checked(store, resource, names.get(0), "the only transaction manager");
		}
		if (names.isEmpty()) {
			if (store.isTransactional()) {
				throw new IdempotencyTransactionManagerException(store.name(), describeResource(resource), null, List.of());
			}
			return new Choice(null, null);
		}
		List<String> candidates = (resource != null) ? names.stream().filter((name) -> manages(bean(name), resource)).toList()
				: names.stream().filter((name) -> readDataSource(bean(name)) != null).toList();
		String chosen = primary(names);
		if (chosen == null || (resource != null && !candidates.contains(chosen))) {
			chosen = (candidates.size() == 1) ? candidates.get(0) : primary(candidates);
		}
		if (chosen == null) {
			if (store.isTransactional()) {
				throw new IdempotencyTransactionManagerException(store.name(), describeResource(resource), null, described(names));
			}
			logger.warn("@Idempotent methods using store '" + store.name() + "' run without a transaction: none of the "
					+ "transaction managers " + described(names) + " is primary or the only one that manages a "
					+ "DataSource; set idempotency.transaction-manager to choose one");
			return new Choice(null, null);
		}
		String chosenName = chosen;
		logger.info("@Idempotent methods using store '" + store.name() + "' run in transaction manager "
				+ describe(chosen) + ((resource != null) ? ", the one that manages " + describeResource(resource) : "")
				+ "; not used by them: " + described(names.stream().filter((name) -> !name.equals(chosenName)).toList())
				+ ". Set idempotency.transaction-manager to choose another");
		return new Choice(bean(chosen), chosen);
	}

	private Choice forInterceptor(IdempotencyStore store, Choice choice) {
		PlatformTransactionManager chosen = choice.transactionManager();
		if (!this.startTransaction || chosen == null
				|| !(store.transactionalResource() instanceof DataSource dataSource)) {
			return choice;
		}
		PlatformTransactionManager copy;
		try {
			copy = StartTransactionManagers.forInterceptor(chosen, dataSource, () -> platform(store, dataSource));
		}
		catch (IllegalStateException ex) {
			logger.debug("@Idempotent methods using store '" + store.name() + "' switch auto-commit to begin a "
					+ "transaction: the database platform could not be read", ex);
			return choice;
		}
		return (copy != null) ? new Choice(copy, choice.beanName()) : choice;
	}

	/** The store's platform if it knows it (the JDBC store's dialect has it): no connection of its own. */
	private static DatabasePlatform platform(IdempotencyStore store, DataSource dataSource) {
		if (store instanceof DatabasePlatformHolder holder) {
			return holder.getDatabasePlatform();
		}
		return DatabasePlatform.detect(dataSource, "how @Idempotent transactions begin");
	}

	private Choice checked(IdempotencyStore store, @Nullable Object resource, String name, String source) {
		PlatformTransactionManager transactionManager = bean(name);
		if (resource != null && !manages(transactionManager, resource)) {
			throw new IdempotencyTransactionManagerException(store.name(), describeResource(resource),
					describe(name) + " (" + source + ")",
					described(Arrays.asList(this.beanFactory.getBeanNamesForType(PlatformTransactionManager.class))));
		}
		return new Choice(transactionManager, name);
	}

	/**
	 * Whether a transaction begun by {@code transactionManager} binds {@code resource}, so that work
	 * on it joins the transaction: a DataSource or JDBC transaction manager over that
	 * {@code DataSource}, or a JPA/Hibernate one that exposes it as its {@code dataSource}.
	 * @param transactionManager the transaction manager
	 * @param resource a transactional resource, such as a {@code DataSource}
	 * @return whether it manages the resource
	 */
	public static boolean manages(PlatformTransactionManager transactionManager, Object resource) {
		// A DataSource proxy that binds its connection under its target (InfrastructureProxy) manages the target.
		Object target = TransactionSynchronizationUtils.unwrapResourceIfNecessary(resource);
		if (transactionManager instanceof ResourceTransactionManager managed && managed.getResourceFactory() != null
				&& TransactionSynchronizationUtils.unwrapResourceIfNecessary(managed.getResourceFactory()) == target) {
			return true;
		}
		Object dataSource = readDataSource(transactionManager);
		return dataSource != null && TransactionSynchronizationUtils.unwrapResourceIfNecessary(dataSource) == target;
	}

	/** The {@code dataSource} property of JPA and Hibernate managers, which bind its connection too. */
	private static @Nullable Object readDataSource(PlatformTransactionManager transactionManager) {
		BeanWrapper wrapper = new BeanWrapperImpl(transactionManager);
		return wrapper.isReadableProperty("dataSource") ? wrapper.getPropertyValue("dataSource") : null;
	}

	private @Nullable String primary(List<String> names) {
		List<String> primary = names.stream()
			.filter((name) -> this.beanFactory.containsBeanDefinition(name)
					&& this.beanFactory.getBeanDefinition(name).isPrimary())
			.toList();
		return (primary.size() == 1) ? primary.get(0) : null;
	}

	private PlatformTransactionManager bean(String name) {
		return this.beanFactory.getBean(name, PlatformTransactionManager.class);
	}

	private String describe(String name) {
		Class<?> type = this.beanFactory.getType(name, false);
		return "'" + name + "' (" + ((type != null) ? type.getSimpleName() : "?") + ")";
	}

	private List<String> described(List<String> names) {
		return names.stream().map(this::describe).toList();
	}

	private static String describeResource(@Nullable Object resource) {
		if (resource == null) {
			return "its resource";
		}
		return ((resource instanceof DataSource) ? "DataSource " : "") + resource;
	}

	/**
	 * The transaction manager chosen for a store.
	 *
	 * @param transactionManager the manager, or {@code null} to run without a transaction
	 * @param beanName its bean name, or {@code null}
	 */
	public record Choice(@Nullable PlatformTransactionManager transactionManager, @Nullable String beanName) {
	}

}
