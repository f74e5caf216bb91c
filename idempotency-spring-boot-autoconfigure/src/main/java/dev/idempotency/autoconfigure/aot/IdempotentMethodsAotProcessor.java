package dev.idempotency.autoconfigure.aot;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.LinkedHashSet;
import java.util.Set;

import dev.idempotency.annotation.Idempotent;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Ahead-of-time processing of the beans with {@code @Idempotent} methods: their key and fingerprint
 * expressions read the arguments reflectively (SpEL's {@code #msg.orderId}), and a stored result is
 * written and read back as JSON of the method's return type. In a native image both need
 * reflection on those types, which this registers, as Spring does for {@code @RequestBody} types.
 *
 * @since 0.2.0
 */
class IdempotentMethodsAotProcessor implements BeanFactoryInitializationAotProcessor {

	private static final BindingReflectionHintsRegistrar BINDING = new BindingReflectionHintsRegistrar();

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
			ConfigurableListableBeanFactory beanFactory) {
		Set<Type> types = new LinkedHashSet<>();
		for (String name : beanFactory.getBeanDefinitionNames()) {
			Class<?> beanClass = RegisteredBean.of(beanFactory, name).getBeanClass();
			types.addAll(argumentAndResultTypes(ClassUtils.getUserClass(beanClass)));
		}
		return types.isEmpty() ? null : (context, code) -> registerHints(context.getRuntimeHints(), types);
	}

	/**
	 * The parameter and return types of a class's {@code @Idempotent} methods.
	 * @param type the bean class
	 * @return the types, empty when it has no such method
	 */
	static Set<Type> argumentAndResultTypes(Class<?> type) {
		Set<Type> types = new LinkedHashSet<>();
		ReflectionUtils.doWithMethods(type, (method) -> {
			types.addAll(Set.of(method.getGenericParameterTypes()));
			if (method.getReturnType() != void.class) {
				types.add(method.getGenericReturnType());
			}
		}, IdempotentMethodsAotProcessor::isIdempotent);
		return types;
	}

	static void registerHints(RuntimeHints hints, Set<Type> types) {
		BINDING.registerReflectionHints(hints.reflection(), types.toArray(Type[]::new));
	}

	private static boolean isIdempotent(Method method) {
		return MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(Idempotent.class);
	}

}
