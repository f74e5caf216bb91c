package dev.idempotency.test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;

/**
 * Runs around every call of a wrapped {@link IdempotencyStore}: throws while {@link StoreFaults} says
 * the store fails, tells it which leased claims are held, and wraps the store's leased side
 * ({@link IdempotencyStore#leased()}) the same way. What describes the store (its name, whether it is
 * transactional, its resource) answers during an outage too, as it does not go to the backend.
 */
final class StoreFaultInterceptor implements MethodInterceptor {

	private static final Set<String> DESCRIPTIONS = Set.of("name", "isTransactional", "transactionalResource",
			"recordsKeyDetails", "leased");

	private final StoreFaults faults;

	private final Map<Object, Object> leasedProxies = new ConcurrentHashMap<>();

	StoreFaultInterceptor(StoreFaults faults) {
		this.faults = faults;
	}

	/**
	 * A proxy of {@code store} that this interceptor runs around: a subclass where the class allows it,
	 * so that beans injected by the store's own type still receive it.
	 */
	static Object wrap(Object store, StoreFaultInterceptor interceptor) {
		ProxyFactory factory = new ProxyFactory(store);
		factory.setProxyTargetClass(!Modifier.isFinal(store.getClass().getModifiers()));
		factory.addAdvice(interceptor);
		return factory.getProxy(store.getClass().getClassLoader());
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		if (AopUtils.isEqualsMethod(method) || AopUtils.isHashCodeMethod(method) || AopUtils.isToStringMethod(method)
				|| method.getDeclaringClass() == Object.class) {
			return invocation.proceed();
		}
		if (DESCRIPTIONS.contains(method.getName()) && method.getParameterCount() == 0) {
			Object result = invocation.proceed();
			return method.getName().equals("leased") ? wrapLeased(invocation, result) : result;
		}
		if (this.faults.isFailing()) {
			throw this.faults.outage(method.getName());
		}
		Object result = invocation.proceed();
		track(invocation, result);
		return result;
	}

	private @Nullable Object wrapLeased(MethodInvocation invocation, @Nullable Object leased) {
		if (leased == null) {
			return null;
		}
		if (leased == invocation.getThis() && invocation instanceof ProxyMethodInvocation proxied) {
			return proxied.getProxy();
		}
		return this.leasedProxies.computeIfAbsent(leased, (store) -> wrap(store, this));
	}

	@SuppressWarnings("unchecked")
	private void track(MethodInvocation invocation, @Nullable Object result) {
		if (!(invocation.getThis() instanceof IdempotencyStore store) || store.isTransactional()) {
			return;
		}
		Object[] args = invocation.getArguments();
		switch (invocation.getMethod().getName()) {
			case "claim" -> {
				if (args.length > 0 && args[0] instanceof IdempotencyKey key && result instanceof ClaimResult claim) {
					this.faults.claimed(store, key, claim);
				}
			}
			case "claimAll" -> {
				if (args.length > 0 && args[0] instanceof List<?> keys && result instanceof List<?> claims
						&& keys.size() == claims.size()) {
					for (int i = 0; i < keys.size(); i++) {
						this.faults.claimed(store, (IdempotencyKey) keys.get(i), (ClaimResult) claims.get(i));
					}
				}
			}
			case "complete", "release" -> {
				if (args.length > 0 && args[0] instanceof IdempotencyKey key) {
					this.faults.ended(key);
				}
			}
			default -> {
			}
		}
	}

}
