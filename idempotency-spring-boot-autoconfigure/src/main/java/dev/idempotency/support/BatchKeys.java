package dev.idempotency.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.IdempotentBatchFailedException;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.KeyResolver;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * The keys of a call for a batch delivery: one key, claim and outcome per message of the list the
 * method receives.
 * <ul>
 * <li>Each message's key is resolved with the message as {@code #element} (and in place of the
 * list parameter) and its own variables ({@code #record}, ...).</li>
 * <li>If the first message's key fails, the call is rejected. If a later one fails, the messages
 * before it are processed and committed without it, and its rejection is parked and thrown after
 * commit: {@link InvalidIdempotencyKeyException#getElementIndex()} is then the number of messages
 * that were processed. The delivery is not acknowledged; what the transport makes of the partial
 * batch is the adapter's business.</li>
 * <li>All keys are claimed at once; the method is called with only the messages claimed now, and
 * not at all if there are none. Any failure fails the whole batch, rolled back as one
 * ({@link IdempotentBatchFailedException}).</li>
 * </ul>
 *
 * @since 0.2.0
 */
final class BatchKeys extends ManyKeys {

	private final MethodInvocation call;

	private final Object target;

	private final IdempotentMethod method;

	private final String namespace;

	private final List<?> batch;

	private final List<DeliveryContext> messages;

	/**
	 * Describes the keys of a call with a batch.
	 * @param call the intercepted call
	 * @param target the object the method is called on
	 * @param method the method's metadata
	 * @param delivery the batch delivery, one element per message
	 * @param namespace the namespace of the keys
	 * @throws IllegalStateException if the method has no {@code List} parameter holding one element
	 * per message of the delivery, or records key details
	 */
	BatchKeys(MethodInvocation call, Object target, IdempotentMethod method, DeliveryContext delivery,
			String namespace) {
		if (method.recordsKeyDetails()) {
			throw new IllegalStateException(batchRefusal(method.fallbackNamespace()));
		}
		this.call = call;
		this.target = target;
		this.method = method;
		this.namespace = namespace;
		this.batch = batch(method, call.getArguments(), delivery);
		this.messages = delivery.elements();
	}

	/**
	 * Why a batch listener cannot record key details: one result per call does not map back to
	 * the messages of a batch, and one conflicting message would fail the whole batch.
	 */
	static String batchRefusal(String methods) {
		return "@Idempotent batch listener " + methods + " uses a fingerprint or onDuplicate = RETURN_PREVIOUS, "
				+ "which batch listeners do not support (a batch has one result for many keys, and one "
				+ "conflicting message would fail them all); remove them, or consume record by record";
	}

	private static List<?> batch(IdempotentMethod method, @Nullable Object[] args, DeliveryContext delivery) {
		if (method.batchParameter() < 0 || !(args[method.batchParameter()] instanceof List<?> batch)) {
			throw new IllegalStateException("@Idempotent " + method.fallbackNamespace() + " is called with a batch "
					+ "of messages but has no List parameter to receive it");
		}
		if (batch.size() != delivery.elements().size()) {
			throw new IllegalStateException("@Idempotent " + method.fallbackNamespace() + " received a list of "
					+ batch.size() + " elements for a batch of " + delivery.elements().size() + " messages");
		}
		return batch;
	}

	/**
	 * Resolves each message's key, stopping at the first that fails: the keys before it are kept
	 * and the failure parked.
	 */
	@Override
	public Resolved resolve(KeyResolver resolver) {
		List<IdempotencyKey> keys = new ArrayList<>(this.batch.size());
		for (int i = 0; i < this.batch.size(); i++) {
			Object element = this.batch.get(i);
			Object[] args = this.call.getArguments().clone();
			args[this.method.batchParameter()] = element;
			DeliveryContext message = this.messages.get(i);
			Map<String, Object> variables = new LinkedHashMap<>(message.variables());
			if (element != null) {
				variables.put("element", element);
			}
			try {
				keys.add(new IdempotencyKey(this.namespace, resolver.resolve(this.method.keyExpression(),
						this.call.getMethod(), args, this.target,
						new DeliveryContext(message.messageId(), message.namespace(), variables, null, List.of()))));
			}
			catch (InvalidIdempotencyKeyException ex) {
				InvalidIdempotencyKeyException rejection = new InvalidIdempotencyKeyException(
						ex.getMessage() + " (message " + i + " of a batch of " + this.batch.size() + ")", ex, i);
				if (i == 0) {
					throw rejection;
				}
				return new Resolved(keys, rejection);
			}
		}
		return new Resolved(keys, null);
	}

	/** Calls the method with the messages claimed now, in their order in the batch. */
	@Override
	public @Nullable Object proceed(InvocationClaims claims) throws Throwable {
		int messages = claims.size();
		List<Object> fresh = new ArrayList<>(messages);
		for (int i = 0; i < messages; i++) {
			if (claims.outcome(i) == IdempotencyOutcome.PROCESSED) {
				fresh.add(this.batch.get(i));
			}
		}
		this.call.getArguments()[this.method.batchParameter()] = fresh;
		try {
			return this.call.proceed();
		}
		catch (Throwable ex) {
			throw new IdempotentBatchFailedException("@Idempotent batch listener " + this.method.fallbackNamespace()
					+ " failed; its batch of " + messages + " messages was rolled back as a whole", ex);
		}
	}

}
