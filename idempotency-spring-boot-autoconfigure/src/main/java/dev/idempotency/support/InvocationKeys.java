package dev.idempotency.support;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.KeyResolver;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * What one call of an {@code @Idempotent} method claims, and how the method is called once it is
 * claimed: the key of its one message ({@link SingleKey}), or one key per message of a batch
 * ({@link ManyKeys}: {@link BatchKeys}, {@link TransactionBatchKeys}). This is all that differs
 * between them; an {@link IdempotentInvocation} runs them all the same way.
 *
 * @since 0.2.0
 */
sealed interface InvocationKeys permits SingleKey, ManyKeys {

	/**
	 * The keys of one call.
	 * @param call the intercepted call
	 * @param target the object the method is called on
	 * @param method the method's metadata
	 * @param delivery the current delivery, or {@code null} outside a transport adapter
	 * @param namespace the namespace of the call's keys
	 * @return a batch's keys for a batch delivery, else one key
	 * @throws IllegalStateException if a batch cannot be received by the method (see
	 * {@link BatchKeys})
	 */
	static InvocationKeys of(MethodInvocation call, Object target, IdempotentMethod method,
			@Nullable DeliveryContext delivery, String namespace) {
		return (delivery != null && delivery.isBatch()) ? new BatchKeys(call, target, method, delivery, namespace)
				: new SingleKey(call, target, method, delivery, namespace);
	}

	/**
	 * Resolves the keys to claim.
	 * @param resolver the key resolver
	 * @return the keys, not empty, and a rejection to throw after commit
	 * @throws InvalidIdempotencyKeyException if no key can be resolved
	 */
	Resolved resolve(KeyResolver resolver);

	/**
	 * Claims the keys in the store.
	 * @param store the store
	 * @param keys the resolved keys
	 * @param lease how long an in-progress claim holds a key
	 * @param retention how long a completed key is remembered
	 * @return one claim per key, in key order
	 */
	List<ClaimResult> claim(IdempotencyStore store, List<IdempotencyKey> keys, Duration lease, Duration retention);

	/**
	 * Runs the method, once at least one key was claimed now.
	 * @param claims the claims of the keys, each mapped to its outcome
	 * @return the method's result
	 * @throws Throwable the method's exception
	 */
	@Nullable Object proceed(InvocationClaims claims) throws Throwable;

	/**
	 * Whether a {@link dev.idempotency.core.CompletingAcknowledger} may complete the claim and
	 * acknowledge in one step; it completes one claim only.
	 * @return whether the call has one claim to complete
	 */
	boolean completesInOneStep();

	/**
	 * The keys of one call.
	 *
	 * @param keys the keys to claim, not empty
	 * @param parkedRejection the rejection of a batch message after the first whose key failed, thrown
	 * once the messages before it are committed; {@code null} when every key was resolved
	 */
	record Resolved(List<IdempotencyKey> keys, @Nullable InvalidIdempotencyKeyException parkedRejection) {

	}

}
