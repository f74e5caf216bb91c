package dev.idempotency.support;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.annotation.Idempotent;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Finds the {@code @Idempotent} methods of a bean factory's beans, without creating any bean, for
 * the start-up checks.
 *
 * @since 0.2.0
 */
public final class IdempotentBeanMethods {

	private IdempotentBeanMethods() {
	}

	/**
	 * Lists every {@code @Idempotent} method of every bean whose type is known.
	 * @param beanFactory the bean factory
	 * @return the methods, bean by bean in definition order
	 */
	public static List<BeanMethod> find(ConfigurableListableBeanFactory beanFactory) {
		List<BeanMethod> found = new ArrayList<>();
		for (String beanName : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = beanFactory.getType(beanName, false);
			if (type == null) {
				continue;
			}
			Class<?> userType = ClassUtils.getUserClass(type);
			MethodIntrospector
				.selectMethods(userType,
						(MethodIntrospector.MetadataLookup<Idempotent>) (method) -> AnnotatedElementUtils
							.findMergedAnnotation(method, Idempotent.class))
				.keySet()
				.forEach((method) -> found.add(new BeanMethod(beanName, userType, method)));
		}
		return found;
	}

	/**
	 * One {@code @Idempotent} method of a bean.
	 *
	 * @param beanName the bean's name
	 * @param userType the bean's class, without a CGLIB subclass
	 * @param method the annotated method
	 */
	public record BeanMethod(String beanName, Class<?> userType, Method method) {

		/**
		 * The method as messages name it.
		 * @return {@code SimpleClassName#method}
		 */
		public String describe() {
			return this.userType.getSimpleName() + "#" + this.method.getName();
		}

	}

}
