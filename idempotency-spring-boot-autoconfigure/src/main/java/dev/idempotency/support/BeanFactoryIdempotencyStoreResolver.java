package dev.idempotency.support;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.IdempotencyStore;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Finds stores in the bean factory: a named bean, or the default store (the only one, or the
 * primary one). Each name is looked up once: a bean-factory lookup on every message cost about a
 * fifth of the interceptor's CPU in the benchmarks. Failed lookups are not cached.
 *
 * @since 0.2.0
 */
public class BeanFactoryIdempotencyStoreResolver implements IdempotencyStoreResolver {

	private final ListableBeanFactory beanFactory;

	private final ObjectProvider<IdempotencyStore> stores;

	private final Map<String, IdempotencyStore> resolved = new ConcurrentHashMap<>();

	public BeanFactoryIdempotencyStoreResolver(ListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.stores = beanFactory.getBeanProvider(IdempotencyStore.class);
	}

	/**
	 * {@inheritDoc}
	 * @throws NoIdempotencyStoreException if {@code name} is empty and there is no default store
	 * @throws org.springframework.beans.factory.NoSuchBeanDefinitionException if no store is named
	 * {@code name}
	 */
	@Override
	public IdempotencyStore resolve(String name) {
		return this.resolved.computeIfAbsent(name, this::lookUp);
	}

	private IdempotencyStore lookUp(String name) {
		if (!name.isEmpty()) {
			return this.beanFactory.getBean(name, IdempotencyStore.class);
		}
		IdempotencyStore store = this.stores.getIfUnique();
		if (store == null) {
			throw new NoIdempotencyStoreException(List.of(), this.stores.stream().count());
		}
		return store;
	}

}
