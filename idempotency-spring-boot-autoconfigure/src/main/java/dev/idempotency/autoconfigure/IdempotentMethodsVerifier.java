package dev.idempotency.autoconfigure;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.support.IdempotencyStoreResolver;
import dev.idempotency.support.IdempotentAdvisor;
import dev.idempotency.support.IdempotentMethod;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.Advised;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Fails start-up, rather than the first message, when an {@code @Idempotent} method has no store, a
 * malformed annotation, a transactional store but no transaction manager, or a bean that is not
 * proxied.
 */
class IdempotentMethodsVerifier implements SmartInitializingSingleton, BeanFactoryAware {

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
		Map<String, List<String>> methodsByStore = new LinkedHashMap<>();
		Map<String, Class<?>> advisedBeans = new LinkedHashMap<>();
		for (String beanName : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = beanFactory.getType(beanName, false);
			if (type == null) {
				continue;
			}
			Class<?> userType = ClassUtils.getUserClass(type);
			Map<Method, Idempotent> methods = MethodIntrospector.selectMethods(userType,
					(MethodIntrospector.MetadataLookup<Idempotent>) (method) -> AnnotatedElementUtils
						.findMergedAnnotation(method, Idempotent.class));
			if (!methods.isEmpty()) {
				advisedBeans.put(beanName, userType);
			}
			methods.forEach((method, annotation) -> {
				IdempotentMethod metadata = IdempotentMethod.of(method, userType, beanFactory::resolveEmbeddedValue);
				methodsByStore.computeIfAbsent(metadata.storeName(), (store) -> new ArrayList<>())
					.add(userType.getSimpleName() + "#" + method.getName());
			});
		}
		IdempotencyStoreResolver stores = beanFactory.getBean(IdempotencyStoreResolver.class);
		methodsByStore.forEach((storeName, methods) -> verify(beanFactory, stores, storeName, methods));
		advisedBeans.forEach((beanName, type) -> verifyAdvised(beanFactory, beanName, type));
	}

	/**
	 * An unproxied bean would run its {@code @Idempotent} methods without deduplication, silently.
	 */
	private static void verifyAdvised(ConfigurableListableBeanFactory beanFactory, String beanName, Class<?> type) {
		Object bean = beanFactory.getSingleton(beanName);
		if (bean == null) {
			return;
		}
		boolean advised = bean instanceof Advised proxy
				&& Arrays.stream(proxy.getAdvisors()).anyMatch(IdempotentAdvisor.class::isInstance);
		if (!advised) {
			throw new IllegalStateException("Bean '" + beanName + "' (" + type.getName() + ") has @Idempotent methods "
					+ "but is not proxied, so they would run without deduplication. Spring AOP auto-proxying is "
					+ "off (spring.aop.auto=false?): turn it on, or declare @EnableTransactionManagement or "
					+ "@EnableAspectJAutoProxy yourself.");
		}
	}

	private static void verify(ConfigurableListableBeanFactory beanFactory, IdempotencyStoreResolver stores,
			String storeName, List<String> methods) {
		IdempotencyStore store;
		try {
			store = stores.resolve(storeName);
		}
		catch (NoIdempotencyStoreException ex) {
			throw new NoIdempotencyStoreException(methods, ex.getCandidates());
		}
		catch (NoSuchBeanDefinitionException ex) {
			throw new IllegalStateException("@Idempotent(store = \"" + storeName + "\") on " + String.join(", ", methods)
					+ " names no IdempotencyStore bean", ex);
		}
		if (store.isTransactional() && beanFactory.getBeanNamesForType(PlatformTransactionManager.class).length == 0) {
			throw new IllegalStateException("Store '" + store.name() + "' used by " + String.join(", ", methods)
					+ " claims keys inside the business transaction, but there is no PlatformTransactionManager; "
					+ "add spring-boot-starter-jdbc (or JPA) so Spring Boot creates one");
		}
	}

}
