package dev.idempotency.support;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.KeyResolver;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * The one key of a call for one message: resolved from the method's arguments and the delivery,
 * claimed alone, and the method called as it was.
 *
 * @since 0.2.0
 */
final class SingleKey implements InvocationKeys {

	private final MethodInvocation call;

	private final Object target;

	private final IdempotentMethod method;

	private final @Nullable DeliveryContext delivery;

	private final String namespace;

	SingleKey(MethodInvocation call, Object target, IdempotentMethod method, @Nullable DeliveryContext delivery,
			String namespace) {
		this.call = call;
		this.target = target;
		this.method = method;
		this.delivery = delivery;
		this.namespace = namespace;
	}

	@Override
	public Resolved resolve(KeyResolver resolver) {
		return new Resolved(List.of(new IdempotencyKey(this.namespace, resolver.resolve(this.method.keyExpression(),
				this.call.getMethod(), this.call.getArguments(), this.target, this.delivery))), null);
	}

	@Override
	public List<ClaimResult> claim(IdempotencyStore store, List<IdempotencyKey> keys, Duration lease,
			Duration retention) {
		return List.of(store.claim(keys.get(0), lease, retention));
	}

	@Override
	public @Nullable Object proceed(InvocationClaims claims) throws Throwable {
		return this.call.proceed();
	}

	@Override
	public boolean completesInOneStep() {
		return true;
	}

}
