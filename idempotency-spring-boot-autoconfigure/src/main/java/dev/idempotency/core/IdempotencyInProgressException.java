package dev.idempotency.core;

import java.time.Duration;

/**
 * Another worker holds an unexpired lease on the key. The delivery is not acknowledged; the
 * transport retries it later, when it is found either processed or free. This is not the message's
 * fault: transports back off (at most until the lease can have expired) without counting the
 * attempt towards dead-lettering.
 *
 * @since 0.1.0
 */
public class IdempotencyInProgressException extends IdempotencyException {

	private final Duration lease;

	public IdempotencyInProgressException(IdempotencyKey key) {
		this(key, Duration.ZERO);
	}

	/**
	 * Creates the exception.
	 * @param key the key held by another worker
	 * @param lease the lease the method claims with: the longest another worker's claim can hold the
	 * key, which bounds how long a transport need wait before the key is free or processed
	 * @since 0.2.0
	 */
	public IdempotencyInProgressException(IdempotencyKey key, Duration lease) {
		super("Message with key '" + key + "' is being processed by another worker");
		this.lease = lease;
	}

	/**
	 * The lease of the method's claims.
	 * @return the lease, {@link Duration#ZERO} if unknown
	 * @since 0.2.0
	 */
	public Duration getLease() {
		return this.lease;
	}

}
