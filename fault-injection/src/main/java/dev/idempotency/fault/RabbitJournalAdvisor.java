package dev.idempotency.fault;

import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;

/**
 * The RabbitMQ side of the {@link EventJournal}: an {@code R} line for each message that reaches a
 * {@link RabbitListener} method. It wraps the method outside the {@code @Idempotent} advisor, so a
 * duplicate, which never reaches the method body, is journaled all the same (as
 * {@link StreamJournalAdvisor} does for Redis Streams).
 */
@SuppressWarnings("serial")
final class RabbitJournalAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, RabbitListener.class, true);

	private final Advice advice;

	RabbitJournalAdvisor(Supplier<EventJournal> journal) {
		this.advice = (MethodInterceptor) (invocation) -> {
			Object[] arguments = invocation.getArguments();
			if (arguments.length == 2 && arguments[0] instanceof OrderPlaced order
					&& arguments[1] instanceof Long deliveryTag) {
				journal.get().received(0, deliveryTag, order.orderId());
			}
			return invocation.proceed();
		};
		setOrder(Ordered.LOWEST_PRECEDENCE - 20);
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
