package dev.idempotency.autoconfigure;

import java.util.List;

import dev.idempotency.core.ArgumentAcknowledgerResolver;
import dev.idempotency.core.DeliveryListener;
import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyLock;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.InfrastructureFailureTypes;
import dev.idempotency.core.InvocationObserver;
import dev.idempotency.core.KeyResolver;
import dev.idempotency.core.MessageTransport;
import dev.idempotency.support.BeanFactoryIdempotencyStoreResolver;
import dev.idempotency.support.ClaimGuards;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.DuplicateFilterChain;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import dev.idempotency.support.IdempotencyDefaults;
import dev.idempotency.support.IdempotencyInterceptor;
import dev.idempotency.support.IdempotencyStoreResolver;
import dev.idempotency.support.IdempotencyTransactionManagerResolver;
import dev.idempotency.support.IdempotentAdvisor;
import dev.idempotency.support.IdempotentMethodsVerifier;
import dev.idempotency.support.KeyDetailsCodec;
import dev.idempotency.support.MessageTransports;
import dev.idempotency.support.PayloadFingerprints;
import dev.idempotency.support.SpelKeyResolver;
import dev.idempotency.support.StoredResults;
import dev.idempotency.support.TransactionManagerSelector;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

/**
 * Auto-configuration of {@code @Idempotent}: the advisor (infrastructure, created early and cheaply),
 * the interceptor behind it (created at first use), the key resolver, a start-up check that every
 * annotated method has a store, and fail-closed (the failure classifier every adapter shares and the
 * listeners' circuits). The message transports and the technologies' infrastructure failure types
 * are registered by each technology's own auto-configuration and found here as beans.
 *
 * @since 0.1.0
 */
// After the stores: IdempotencyStoreAutoConfiguration says so (before = this class), so that this
// package does not depend on its sub-package.
@AutoConfiguration(afterName = "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration")
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ IdempotencyProperties.class, IdempotencyFailClosedProperties.class })
public final class IdempotencyAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotentAdvisor idempotentAdvisor(ObjectProvider<IdempotencyInterceptor> interceptor,
			Environment environment) {
		// Static and bound by hand: advisors are created before configuration properties beans.
		int order = Binder.get(environment)
			.bindOrCreate("idempotency", IdempotencyProperties.class)
			.getAdvisorOrder();
		return new IdempotentAdvisor(interceptor::getObject, order);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	IdempotencyInterceptor idempotencyInterceptor(IdempotencyProperties properties, KeyResolver keyResolver,
			IdempotencyStoreResolver idempotencyStoreResolver,
			IdempotencyTransactionManagerResolver idempotencyTransactionManagerResolver,
			ObjectProvider<IdempotencyListener> listeners, ObjectProvider<ArgumentAcknowledgerResolver> acknowledgers,
			ObjectProvider<DuplicateFilterChain> filters, ObjectProvider<IdempotencyLock> lock,
			ObjectProvider<KeyDetailsCodec> keyDetails, ObjectProvider<InvocationObserver> observer,
			ObjectProvider<MessageTransport> transports, ConfigurableListableBeanFactory beanFactory) {
		IdempotencyDefaults defaults = new IdempotencyDefaults(properties.getRetention(), properties.getLease(),
				properties.getTransactionTimeout(), properties.isRenewLeases(), properties.getFingerprint(),
				properties.isDuplicateAccounting());
		SingletonSupplier<List<IdempotencyListener>> listenerList = SingletonSupplier
			.of(() -> listeners.orderedStream().toList());
		SingletonSupplier<List<ArgumentAcknowledgerResolver>> acknowledgerList = SingletonSupplier
			.of(() -> acknowledgers.orderedStream().toList());
		return IdempotencyInterceptor.builder(defaults, idempotencyStoreResolver, idempotencyTransactionManagerResolver)
			.keyResolver(keyResolver)
			.listeners(listenerList)
			.placeholders(beanFactory::resolveEmbeddedValue)
			.acknowledgerResolvers(acknowledgerList)
			.guards(() -> new ClaimGuards(filters.getIfAvailable(DuplicateFilterChain::none), lock.getIfUnique()))
			.keyDetails(keyDetails::getIfAvailable)
			.observer(() -> observer.getIfUnique(() -> InvocationObserver.NONE))
			.transports(() -> MessageTransports.from(transports))
			.build();
	}

	@Bean
	@ConditionalOnMissingBean
	SpelKeyResolver idempotencyKeyResolver() {
		return new SpelKeyResolver();
	}

	@Bean
	@ConditionalOnMissingBean(IdempotencyStoreResolver.class)
	BeanFactoryIdempotencyStoreResolver idempotencyStoreResolver(ConfigurableListableBeanFactory beanFactory) {
		return new BeanFactoryIdempotencyStoreResolver(beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean(IdempotencyTransactionManagerResolver.class)
	TransactionManagerSelector idempotencyTransactionManagerResolver(IdempotencyProperties properties,
			ConfigurableListableBeanFactory beanFactory) {
		return new TransactionManagerSelector(beanFactory, properties.getTransactionManager(),
				properties.isStartTransaction());
	}

	@Bean
	@ConditionalOnMissingBean(FailureClassifier.class)
	DefaultFailureClassifier idempotencyFailureClassifier(IdempotencyFailClosedProperties properties,
			ObjectProvider<InfrastructureFailureTypes> technologies) {
		return new DefaultFailureClassifier(technologies.orderedStream().toList(),
				properties.getInfrastructureExceptions(), properties.getMessageExceptions());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "idempotency.fail-closed.enabled", matchIfMissing = true)
	FailClosedCircuits idempotencyFailClosedCircuits(FailureClassifier classifier,
			IdempotencyFailClosedProperties properties, ObjectProvider<IdempotencyStore> stores,
			ObjectProvider<DeliveryListener> listeners) {
		SingletonSupplier<List<DeliveryListener>> listenerList = SingletonSupplier
			.of(() -> listeners.orderedStream().toList());
		return new FailClosedCircuits(classifier, () -> stores.orderedStream().forEach(IdempotencyStore::probe),
				new FailClosedSettings(properties.getProbeInterval(), properties.getMaxWait()), listenerList);
	}

	@Bean
	static IdempotentMethodsVerifier idempotentMethodsVerifier() {
		return new IdempotentMethodsVerifier();
	}

	/**
	 * Payload fingerprints and stored results, which need Jackson: without it, methods that use them
	 * fail start-up.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(JsonMapper.class)
	static class KeyDetailsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		KeyDetailsCodec idempotencyKeyDetailsCodec(IdempotencyProperties properties,
				ObjectProvider<JsonMapper> jsonMapper) {
			return new KeyDetailsCodec(new PayloadFingerprints(),
					new StoredResults(jsonMapper.getIfAvailable(JsonMapper::shared),
							properties.getStoredResult().getMaxSize()));
		}

	}

}
