package dev.idempotency.autoconfigure.health;

import java.util.Map;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.support.FailClosedCircuits;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator health indicators of the starter, when Spring Boot's health module is on the class path.
 * Each is switched off with {@code management.health.<name>.enabled=false} and replaced by a bean
 * of the application's own with the same name:
 * <ul>
 * <li>{@code idempotencyStore} ({@code management.health.idempotencystore.enabled}): every
 * {@link IdempotencyStore} bean, probed within a timeout; a composite by bean name when there are
 * several;</li>
 * <li>{@code idempotencyListeners} ({@code management.health.idempotencylisteners.enabled}): the
 * listeners paused by fail-closed, when fail-closed is on.</li>
 * </ul>
 * The technologies add their own with the same {@link IdempotencyHealthProperties}: the Redis Stream
 * subscriptions ({@code idempotencyStreams}) and the outbox ({@code idempotencyOutbox}).
 *
 * @since 0.2.0
 */
// The store technologies run before IdempotencyStoreAutoConfiguration, so their stores are known here.
@AutoConfiguration(after = { IdempotencyStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class })
@ConditionalOnClass({ HealthContributor.class, ConditionalOnEnabledHealthIndicator.class })
@EnableConfigurationProperties(IdempotencyHealthProperties.class)
public final class IdempotencyHealthAutoConfiguration {

	/** The dedup stores: one indicator per {@link IdempotencyStore} bean. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(IdempotencyStore.class)
	static class StoreHealthConfiguration {

		@Bean
		@ConditionalOnEnabledHealthIndicator("idempotencystore")
		@ConditionalOnMissingBean(name = "idempotencyStoreHealthContributor")
		HealthContributor idempotencyStoreHealthContributor(Map<String, IdempotencyStore> stores,
				IdempotencyHealthProperties properties) {
			if (stores.size() == 1) {
				return indicator(stores.values().iterator().next(), properties);
			}
			return CompositeHealthContributor.fromMap(stores, (store) -> indicator(store, properties));
		}

		private static IdempotencyStoreHealthIndicator indicator(IdempotencyStore store,
				IdempotencyHealthProperties properties) {
			return new IdempotencyStoreHealthIndicator(store, properties.getStore().getTimeout());
		}

	}

	/** The listeners paused by fail-closed. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(FailClosedCircuits.class)
	static class ListenersHealthConfiguration {

		@Bean
		@ConditionalOnEnabledHealthIndicator("idempotencylisteners")
		@ConditionalOnMissingBean(name = "idempotencyListenersHealthIndicator")
		IdempotencyListenersHealthIndicator idempotencyListenersHealthIndicator(FailClosedCircuits circuits,
				IdempotencyHealthProperties properties) {
			return new IdempotencyListenersHealthIndicator(circuits, properties.getListeners().getPausedThreshold());
		}

	}

}
