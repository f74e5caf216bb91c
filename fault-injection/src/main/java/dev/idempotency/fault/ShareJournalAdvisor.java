package dev.idempotency.fault;

import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * The share-group side of the {@link EventJournal}: an {@code R} line for each record that reaches
 * the {@link KafkaListener} method (share containers have no record interceptor). It wraps the
 * method outside the {@code @Idempotent} advisor, so a duplicate, which never reaches the method
 * body, is journaled all the same (as {@link RabbitJournalAdvisor} does for RabbitMQ).
 */
@SuppressWarnings("serial")
final class ShareJournalAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, KafkaListener.class, true);

	private final Advice advice;

	ShareJournalAdvisor(Supplier<EventJournal> journal) {
		this.advice = (MethodInterceptor) (invocation) -> {
			Object[] arguments = invocation.getArguments();
			if (arguments.length == 2 && arguments[0] instanceof OrderPlaced order
					&& arguments[1] instanceof ConsumerRecord<?, ?> record) {
				journal.get().received(record.partition(), record.offset(), order.orderId());
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
