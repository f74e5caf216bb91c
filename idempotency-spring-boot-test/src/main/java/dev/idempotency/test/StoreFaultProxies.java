package dev.idempotency.test;

import dev.idempotency.core.IdempotencyStore;

import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps every {@link IdempotencyStore} bean so that {@link StoreFaults} can cut it off and expire its
 * leases. The wrapper is a subclass of the store's class, so beans injected by that class still get
 * it; while no fault is set it only passes calls on.
 */
final class StoreFaultProxies implements BeanPostProcessor {

	private final ObjectProvider<StoreFaults> faults;

	private volatile StoreFaultInterceptor interceptor;

	StoreFaultProxies(ObjectProvider<StoreFaults> faults) {
		this.faults = faults;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof IdempotencyStore)) {
			return bean;
		}
		if (bean instanceof Advised advised && !advised.isFrozen()) {
			advised.addAdvice(0, interceptor());
			return bean;
		}
		return StoreFaultInterceptor.wrap(bean, interceptor());
	}

	private StoreFaultInterceptor interceptor() {
		StoreFaultInterceptor current = this.interceptor;
		if (current == null) {
			current = new StoreFaultInterceptor(this.faults.getObject());
			this.interceptor = current;
		}
		return current;
	}

}
