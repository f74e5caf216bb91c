package dev.idempotency.support;

import java.util.ArrayList;
import java.util.List;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.KeyResolver;
import org.jspecify.annotations.Nullable;

/**
 * The keys of a {@link TransactionBatch}: one per collected call, resolved when the call was
 * collected, claimed all at once; each call claimed now proceeds in turn, in the order collected,
 * with its own delivery bound. A failure of any call fails the batch as it is, to be rolled back
 * as one.
 *
 * @since 0.2.0
 */
final class TransactionBatchKeys extends ManyKeys {

	private final List<TransactionBatch.Call> calls;

	TransactionBatchKeys(List<TransactionBatch.Call> calls) {
		this.calls = calls;
	}

	@Override
	public Resolved resolve(KeyResolver resolver) {
		List<IdempotencyKey> keys = new ArrayList<>(this.calls.size());
		for (TransactionBatch.Call call : this.calls) {
			keys.add(call.key());
		}
		return new Resolved(keys, null);
	}

	/** Runs the calls claimed now, in order; the delivery bound before is bound again after. */
	@Override
	public @Nullable Object proceed(InvocationClaims claims) throws Throwable {
		DeliveryContext bound = DeliveryContextHolder.current();
		try {
			for (int i = 0; i < this.calls.size(); i++) {
				if (claims.outcome(i) == IdempotencyOutcome.PROCESSED) {
					TransactionBatch.Call call = this.calls.get(i);
					bind(call.delivery());
					call.invocation().proceed();
				}
			}
		}
		finally {
			bind(bound);
		}
		return null;
	}

	private static void bind(@Nullable DeliveryContext delivery) {
		if (delivery != null) {
			DeliveryContextHolder.set(delivery);
		}
		else {
			DeliveryContextHolder.clear();
		}
	}

}
