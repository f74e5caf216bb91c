package dev.idempotency.autoconfigure.store;

import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.support.InMemoryIdempotencyStore;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The in-memory store, only when asked for by {@code idempotency.store.type=in-memory}: it would
 * silently lose every key on restart in production.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(IdempotencyStore.class)
@Conditional(StoreTypeCondition.InMemory.class)
class InMemoryStoreConfiguration {

	@Bean
	InMemoryIdempotencyStore idempotencyStore() {
		return new InMemoryIdempotencyStore();
	}

}
