package dev.idempotency.redis.stream;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringUtils;

/**
 * Finds {@link RedisStreamListener} methods on beans, resolves their placeholders and keeps them as
 * endpoints for the {@link RedisStreamListenerRegistry}, which starts them once the context is
 * refreshed. The method is invoked on the bean as the container holds it (its proxy), so
 * {@code @Idempotent} and {@code @Transactional} advice applies.
 *
 * @since 0.1.0
 */
public class RedisStreamListenerAnnotationBeanPostProcessor implements BeanPostProcessor, BeanFactoryAware {

	private final List<RedisStreamListenerEndpoint> endpoints = new ArrayList<>();

	private final Set<Class<?>> classesWithoutListeners = ConcurrentHashMap.newKeySet();

	private @Nullable ConfigurableBeanFactory beanFactory;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.beanFactory = configurable;
		}
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (this.classesWithoutListeners.contains(targetClass)) {
			return bean;
		}
		Map<Method, RedisStreamListener> annotated = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<RedisStreamListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, RedisStreamListener.class));
		if (annotated.isEmpty()) {
			this.classesWithoutListeners.add(targetClass);
			return bean;
		}
		annotated.forEach((method, annotation) -> register(bean, beanName, method, annotation));
		return bean;
	}

	private void register(Object bean, String beanName, Method method, RedisStreamListener annotation) {
		if (method.getParameterCount() != 1) {
			throw new IllegalStateException("@RedisStreamListener method " + method
					+ " must take exactly one parameter (the record or its payload)");
		}
		Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		String stream = required(resolve(annotation.stream()), "stream", method);
		String group = required(resolve(annotation.group()), "group", method);
		String consumer = resolve(annotation.consumer());
		String concurrency = resolve(annotation.concurrency());
		String id = resolve(annotation.id());
		Integer parsedConcurrency = null;
		if (StringUtils.hasText(concurrency)) {
			parsedConcurrency = Integer.valueOf(concurrency.trim());
			if (parsedConcurrency < 1) {
				throw new IllegalStateException("@RedisStreamListener concurrency of " + method + " must be at least 1");
			}
		}
		synchronized (this.endpoints) {
			this.endpoints.add(new RedisStreamListenerEndpoint(
					StringUtils.hasText(id) ? id : beanName + "#" + method.getName(), stream, group,
					StringUtils.hasText(consumer) ? consumer : null, parsedConcurrency, bean, invocable));
		}
	}

	private String resolve(String value) {
		if (this.beanFactory == null || value.isEmpty()) {
			return value;
		}
		String resolved = this.beanFactory.resolveEmbeddedValue(value);
		return (resolved != null) ? resolved : value;
	}

	private static String required(String value, String attribute, Method method) {
		if (!StringUtils.hasText(value)) {
			throw new IllegalStateException("@RedisStreamListener " + attribute + " of " + method + " is empty");
		}
		return value;
	}

	/**
	 * The endpoints found so far.
	 * @return a copy, in discovery order
	 */
	public List<RedisStreamListenerEndpoint> getEndpoints() {
		synchronized (this.endpoints) {
			return List.copyOf(this.endpoints);
		}
	}

}
