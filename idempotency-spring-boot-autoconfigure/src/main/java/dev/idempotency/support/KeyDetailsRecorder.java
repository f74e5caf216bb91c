package dev.idempotency.support;

import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyConflictException;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.RecordedKey;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * What one call records with its key, and reads back for a duplicate, when its method has a
 * fingerprint expression or {@link OnDuplicate#RETURN_PREVIOUS}: the payload's fingerprint and its
 * serialized result. A leased claim commits on its own, so its fingerprint is recorded once claimed,
 * before the method runs (a concurrent delivery compares it while the method runs), and the result
 * after the method returned, before completion. A transactional claim is invisible to other
 * deliveries until commit (a concurrent claim waits for it), so both are recorded together after the
 * method returned, before commit: one write instead of two
 * ({@link IdempotencyStore#recordDetails}). A duplicate's recorded fingerprint that differs from this
 * delivery's is a conflict, and a stored result is returned. A call of any other method records and
 * reads nothing. Not thread-safe: one instance per call.
 *
 * @since 0.2.0
 */
final class KeyDetailsRecorder {

	private final KeyDetailsSupport support;

	private final IdempotentMethod method;

	private final MethodInvocation call;

	private final Object target;

	private final @Nullable DeliveryContext delivery;

	private final IdempotencyStore store;

	private @Nullable String fingerprint;

	KeyDetailsRecorder(KeyDetailsSupport support, IdempotentMethod method, MethodInvocation call, Object target,
			@Nullable DeliveryContext delivery, IdempotencyStore store) {
		this.support = support;
		this.method = method;
		this.call = call;
		this.target = target;
		this.delivery = delivery;
		this.store = store;
	}

	/**
	 * Takes the fingerprint of this delivery's payload, if the method has a fingerprint expression.
	 * @throws InvalidFingerprintException if the payload cannot be fingerprinted
	 */
	void fingerprint() {
		String expression = this.method.fingerprintExpression();
		if (expression == null) {
			return;
		}
		Object payload = this.support.expressions()
			.evaluatePayload(expression, this.call.getMethod(), this.call.getArguments(), this.target, this.delivery);
		this.fingerprint = this.support.requireCodec(this.method)
			.fingerprints()
			.fingerprint(payload, expression, this.call.getMethod());
	}

	/**
	 * The key was claimed now and the method is about to run: records the fingerprint of a leased
	 * claim; a transactional claim's waits for the result.
	 * @param key the key
	 * @param claim its claim
	 */
	void claimed(IdempotencyKey key, ClaimResult claim) {
		if (this.fingerprint != null && !this.store.isTransactional()) {
			this.store.recordFingerprint(key, claim, this.fingerprint);
		}
	}

	/**
	 * The method returned: records its result, for {@link OnDuplicate#RETURN_PREVIOUS}, and a
	 * transactional claim's fingerprint with it.
	 * @param key the key
	 * @param claim its claim
	 * @param result the method's result
	 */
	void returned(IdempotencyKey key, ClaimResult claim, @Nullable Object result) {
		String serialized = (result != null && this.method.onDuplicate() == OnDuplicate.RETURN_PREVIOUS)
				? this.support.requireCodec(this.method).results().serialize(result, this.call.getMethod()) : null;
		if (this.store.isTransactional()) {
			if (this.fingerprint != null || serialized != null) {
				this.store.recordDetails(key, claim, this.fingerprint, serialized);
			}
		}
		else if (serialized != null) {
			this.store.recordResult(key, claim, serialized);
		}
	}

	/**
	 * Reads what the store recorded with a duplicate key: a fingerprint that differs from this
	 * delivery's is a conflict; one recorded before fingerprints were (or without one) is not checked.
	 * @param key the duplicate key
	 * @return the recorded details, or {@code null} if the method records none or the key is gone
	 * @throws IdempotencyKeyConflictException if the fingerprints differ
	 */
	@Nullable RecordedKey duplicate(IdempotencyKey key) {
		if (!this.method.recordsKeyDetails()) {
			return null;
		}
		RecordedKey recorded = this.store.recorded(key);
		String previous = (recorded != null) ? recorded.fingerprint() : null;
		if (this.fingerprint != null && previous != null && !previous.equals(this.fingerprint)) {
			throw new IdempotencyKeyConflictException(key, previous, this.fingerprint);
		}
		return recorded;
	}

	/**
	 * What the call returns when the method did not run: the stored result for
	 * {@link OnDuplicate#RETURN_PREVIOUS}, else the method's skipped value.
	 * @param recorded what {@link #duplicate} read, or {@code null}
	 * @return the value
	 */
	@Nullable Object skipped(@Nullable RecordedKey recorded) {
		if (recorded != null && recorded.result() != null && this.method.onDuplicate() == OnDuplicate.RETURN_PREVIOUS) {
			return this.support.requireCodec(this.method)
				.results()
				.deserialize(recorded.result(), this.call.getMethod(), this.target.getClass());
		}
		return this.method.skippedValue();
	}

}
