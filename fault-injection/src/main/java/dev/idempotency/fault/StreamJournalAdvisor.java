package dev.idempotency.fault;

import java.util.function.Supplier;

import dev.idempotency.redis.stream.RedisStreamListener;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.stream.Record;

/**
 * The Redis Stream side of the {@link EventJournal}: an {@code R} line for each entry that reaches a
 * {@link RedisStreamListener} method, whether read or claimed from the pending list. The stream
 * container has no record interceptor, so this advisor wraps the method outside the
 * {@code @Idempotent} advisor (whose default order is {@code LOWEST_PRECEDENCE - 10}): a duplicate,
 * which never reaches the method body, is journaled all the same. An entry whose payload cannot be
 * converted never reaches the method, as an undeserializable Kafka record never reaches the
 * listener: it is journaled only by its {@code D} line.
 */
@SuppressWarnings("serial")
final class StreamJournalAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, RedisStreamListener.class, true);

	private final Advice advice;

	StreamJournalAdvisor(Supplier<EventJournal> journal) {
		this.advice = (MethodInterceptor) (invocation) -> {
			if (invocation.getArguments().length == 1 && invocation.getArguments()[0] instanceof Record<?, ?> entry) {
				String orderId = (entry.getValue() instanceof OrderPlaced order) ? order.orderId() : "?";
				journal.get().received(entry.getId().getSequence(), entry.getId().getTimestamp(), orderId);
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
