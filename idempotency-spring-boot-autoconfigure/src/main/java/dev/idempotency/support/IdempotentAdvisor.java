package dev.idempotency.support;

import java.util.Arrays;
import java.util.function.Supplier;

import dev.idempotency.annotation.Idempotent;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.util.function.SingletonSupplier;

/**
 * Applies the {@link IdempotencyInterceptor} to methods annotated with {@link Idempotent} (on the
 * method, or on the interface method it implements). Plain Spring AOP: no AspectJ weaver.
 * <p>
 * Its order decides whether it runs outside or inside {@code @Transactional}: either works, because
 * the interceptor joins a transaction that is already open. By default it runs outside, so the
 * interceptor owns the transaction boundary.
 *
 * @since 0.1.0
 */
@SuppressWarnings("serial")
public class IdempotentAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, Idempotent.class, true);

	private final Advice advice;

	/**
	 * Creates the advisor.
	 * @param interceptor supplies the interceptor on first use, so that creating the advisor (early,
	 * as infrastructure) does not create stores or transaction managers
	 * @param order the advisor's order
	 */
	public IdempotentAdvisor(Supplier<IdempotencyInterceptor> interceptor, int order) {
		SingletonSupplier<IdempotencyInterceptor> lazy = SingletonSupplier.of(interceptor);
		this.advice = new LazyInterceptor(lazy);
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

	private record LazyInterceptor(SingletonSupplier<IdempotencyInterceptor> interceptor) implements MethodInterceptor {

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			return this.interceptor.obtain().invoke(invocation);
		}

	}

	/**
	 * Whether a bean is a proxy that this advisor advises: without it, its {@code @Idempotent}
	 * methods run without deduplication.
	 * @param bean the bean
	 * @return {@code true} for a proxy with an {@code IdempotentAdvisor}
	 */
	public static boolean advises(Object bean) {
		return bean instanceof Advised proxy
				&& Arrays.stream(proxy.getAdvisors()).anyMatch(IdempotentAdvisor.class::isInstance);
	}

}
