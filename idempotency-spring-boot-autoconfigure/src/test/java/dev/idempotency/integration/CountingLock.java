package dev.idempotency.integration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyLock;

import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps the context's {@link IdempotencyLock} to count acquisitions, and those that waited at least
 * {@code waited} for another delivery to release the key.
 */
final class CountingLock implements IdempotencyLock {

	private final IdempotencyLock lock;

	private final Duration waited;

	final AtomicInteger acquired = new AtomicInteger();

	final AtomicInteger waits = new AtomicInteger();

	final AtomicInteger refused = new AtomicInteger();

	private CountingLock(IdempotencyLock lock, Duration waited) {
		this.lock = lock;
		this.waited = waited;
	}

	@Override
	public Held acquire(List<IdempotencyKey> keys, Duration lease) {
		long started = System.nanoTime();
		try {
			Held held = this.lock.acquire(keys, lease);
			this.acquired.incrementAndGet();
			if (System.nanoTime() - started >= this.waited.toNanos()) {
				this.waits.incrementAndGet();
			}
			return held;
		}
		catch (RuntimeException ex) {
			this.refused.incrementAndGet();
			throw ex;
		}
	}

	/** A post-processor that wraps the context's lock; the wrapper is the lock bean afterwards. */
	static BeanPostProcessor wrapping(Duration waited) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				return (bean instanceof IdempotencyLock lock && !(bean instanceof CountingLock))
						? new CountingLock(lock, waited) : bean;
			}

		};
	}

}
