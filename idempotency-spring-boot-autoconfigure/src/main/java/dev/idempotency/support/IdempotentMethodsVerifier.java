package dev.idempotency.support;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.KeyResolver;
import dev.idempotency.core.MessageTransport;
import dev.idempotency.support.IdempotentBeanMethods.BeanMethod;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Fails start-up, rather than the first message, when an {@code @Idempotent} method has no store, a
 * malformed annotation or key expression, a default namespace it would share with another method,
 * a transactional store without a transaction manager that manages the store's resource, or a bean
 * that is not proxied; and when a method that uses a fingerprint or
 * {@code onDuplicate = RETURN_PREVIOUS} has a store that does not record them, no Jackson to
 * serialize them, or is a batch listener.
 *
 * @since 0.1.0
 */
public class IdempotentMethodsVerifier implements SmartInitializingSingleton, BeanFactoryAware {

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		if (beanFactory == null) {
			return;
		}
		KeyResolver keyResolver = beanFactory.getBean(KeyResolver.class);
		SpelKeyResolver payloadExpressions = (keyResolver instanceof SpelKeyResolver spel) ? spel
				: new SpelKeyResolver();
		String defaultFingerprint = beanFactory.resolveEmbeddedValue("${idempotency.fingerprint:}");
		MessageTransports transports = MessageTransports.from(beanFactory.getBeanProvider(MessageTransport.class));
		Map<Target, List<String>> methodsByTarget = new LinkedHashMap<>();
		Map<Target, List<String>> recordingByTarget = new LinkedHashMap<>();
		Map<String, Set<Method>> methodsByDefaultNamespace = new LinkedHashMap<>();
		Map<String, Class<?>> advisedBeans = new LinkedHashMap<>();
		for (BeanMethod found : IdempotentBeanMethods.find(beanFactory)) {
			advisedBeans.put(found.beanName(), found.userType());
			IdempotentMethod metadata = IdempotentMethod.of(found.method(), found.userType(), transports,
					beanFactory::resolveEmbeddedValue, defaultFingerprint);
			keyResolver.validate(metadata.keyExpression(), found.method());
			if (metadata.recordsKeyDetails()) {
				verifyRecordsKeyDetails(beanFactory, payloadExpressions, transports, metadata, found);
				recordingByTarget.computeIfAbsent(new Target(metadata.storeName(), metadata.mode()),
						(target) -> new ArrayList<>())
					.add(found.describe());
			}
			// Listeners named by an id are told apart by it (several @KafkaHandler methods of one
			// class-level listener share it on purpose).
			if (metadata.namespace() == null && metadata.listenerId() == null) {
				methodsByDefaultNamespace.computeIfAbsent(metadata.fallbackNamespace(), (key) -> new LinkedHashSet<>())
					.add(found.method());
			}
			methodsByTarget.computeIfAbsent(new Target(metadata.storeName(), metadata.mode()), (target) -> new ArrayList<>())
				.add(found.describe());
		}
		methodsByDefaultNamespace.forEach(IdempotentMethodsVerifier::verifyDistinct);
		IdempotencyStoreResolver stores = beanFactory.getBean(IdempotencyStoreResolver.class);
		IdempotencyTransactionManagerResolver transactionManagers = beanFactory
			.getBean(IdempotencyTransactionManagerResolver.class);
		methodsByTarget.forEach((target, methods) -> verify(stores, transactionManagers, target, methods,
				recordingByTarget.getOrDefault(target, List.of())));
		advisedBeans.forEach((beanName, type) -> verifyAdvised(beanFactory, beanName, type));
	}

	/**
	 * Two methods whose default namespaces are equal (same simple class name and method name, such as
	 * overloads) would share dedup keys without anyone having asked for it.
	 */
	private static void verifyDistinct(String defaultNamespace, Set<Method> methods) {
		if (methods.size() > 1) {
			throw new IllegalStateException("@Idempotent methods " + methods + " would share the default namespace '"
					+ defaultNamespace + "' and with it their dedup keys; give each its own "
					+ "@Idempotent(namespace = \"...\"), or the same one on purpose");
		}
	}

	/**
	 * An unproxied bean would run its {@code @Idempotent} methods without deduplication, silently.
	 */
	private static void verifyAdvised(ConfigurableListableBeanFactory beanFactory, String beanName, Class<?> type) {
		Object bean = beanFactory.getSingleton(beanName);
		if (bean == null) {
			return;
		}
		if (!IdempotentAdvisor.advises(bean)) {
			throw new IllegalStateException("Bean '" + beanName + "' (" + type.getName() + ") has @Idempotent methods "
					+ "but is not proxied, so they would run without deduplication. Spring AOP auto-proxying is "
					+ "off (spring.aop.auto=false?): turn it on, or declare @EnableTransactionManagement or "
					+ "@EnableAspectJAutoProxy yourself.");
		}
	}

	/**
	 * A method that records key details needs Jackson, a parsable fingerprint expression, and must
	 * not be a batch listener (as far as its annotation tells: a container factory in batch mode is
	 * refused at the first batch).
	 */
	private static void verifyRecordsKeyDetails(ConfigurableListableBeanFactory beanFactory,
			SpelKeyResolver payloadExpressions, MessageTransports transports, IdempotentMethod metadata,
			BeanMethod found) {
		if (beanFactory.getBeanNamesForType(KeyDetailsCodec.class, false, false).length == 0) {
			throw new IllegalStateException(KeyDetailsSupport.noCodecMessage("[" + found.describe() + "]"));
		}
		if (metadata.fingerprintExpression() != null) {
			payloadExpressions.validatePayload(metadata.fingerprintExpression(), found.method());
		}
		if (transports.isBatchListener(found.method(), beanFactory::resolveEmbeddedValue)) {
			throw new IllegalStateException(BatchKeys.batchRefusal(found.describe()));
		}
	}

	private static void verify(IdempotencyStoreResolver stores,
			IdempotencyTransactionManagerResolver transactionManagers, Target target, List<String> methods,
			List<String> recording) {
		ClaimPath path;
		try {
			path = ClaimPath.choose(stores, transactionManagers, target.storeName(), target.mode(), methods);
		}
		catch (NoIdempotencyStoreException ex) {
			throw new NoIdempotencyStoreException(methods, ex.getCandidates());
		}
		catch (NoSuchBeanDefinitionException ex) {
			throw new IllegalStateException("@Idempotent(store = \"" + target.storeName() + "\") on "
					+ String.join(", ", methods) + " names no IdempotencyStore bean", ex);
		}
		IdempotencyStore store = path.store();
		PlatformTransactionManager transactionManager = path.transactionManager();
		Object resource = store.transactionalResource();
		if (store.isTransactional() && (transactionManager == null
				|| (resource != null && !TransactionManagerSelector.manages(transactionManager, resource)))) {
			throw new IdempotencyTransactionManagerException(store.name(), String.valueOf(resource),
					(transactionManager != null) ? transactionManager.getClass().getSimpleName() : null, List.of());
		}
		if (!recording.isEmpty() && !store.recordsKeyDetails()) {
			throw new IllegalStateException("@Idempotent methods " + recording + " use a fingerprint or onDuplicate = "
					+ "RETURN_PREVIOUS, but store '" + store.name() + "' (" + store.getClass().getName()
					+ ") does not record fingerprints or results with its keys; use a store that does (jdbc, "
					+ "redis, redisson, in-memory)");
		}
	}

	/** The store and mode a group of methods claims in. */
	private record Target(String storeName, IdempotencyMode mode) {
	}

}
