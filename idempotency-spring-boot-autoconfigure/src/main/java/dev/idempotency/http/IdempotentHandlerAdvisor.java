package dev.idempotency.http;

import dev.idempotency.annotation.Idempotent;
import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * Applies one of the HTTP transport's interceptors to {@code @Idempotent} handler methods (methods
 * with a {@code @RequestMapping}, {@code @PostMapping}, ...): {@link IdempotentRequestInterceptor}
 * just outside the engine's advisor, {@link HandlerResponseInterceptor} just inside it.
 *
 * @since 0.2.0
 */
@SuppressWarnings("serial")
public class IdempotentHandlerAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut = new ComposablePointcut(
			new AnnotationMatchingPointcut(null, Idempotent.class, true))
		.intersection(new AnnotationMatchingPointcut(null, RequestMapping.class, true));

	private final Advice advice;

	/**
	 * Creates the advisor.
	 * @param advice the interceptor
	 * @param order its order: the engine's minus one for the request, plus one for the response
	 */
	public IdempotentHandlerAdvisor(Advice advice, int order) {
		this.advice = advice;
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

}
