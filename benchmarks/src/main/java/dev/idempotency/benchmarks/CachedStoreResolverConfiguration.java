package dev.idempotency.benchmarks;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.support.IdempotencyStoreResolver;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Diagnostic only (variant {@code starter-jdbc-cached}, not in the default matrix): the change proposed
 * in docs/performance.md, tried from the outside. The auto-configured resolver asks the bean factory
 * ({@code ObjectProvider.getIfUnique()}) on every invocation; this one resolves each store name once.
 * The auto-configured resolver backs off because of {@code @ConditionalOnMissingBean}.
 */
@Configuration(proxyBeanMethods = false)
class CachedStoreResolverConfiguration {

	@Bean
	IdempotencyStoreResolver idempotencyStoreResolver(ObjectProvider<IdempotencyStore> stores,
			ConfigurableListableBeanFactory beanFactory) {
		Map<String, IdempotencyStore> resolved = new ConcurrentHashMap<>();
		return (name) -> resolved.computeIfAbsent(name, (key) -> key.isEmpty() ? stores.getObject()
				: beanFactory.getBean(key, IdempotencyStore.class));
	}

}
