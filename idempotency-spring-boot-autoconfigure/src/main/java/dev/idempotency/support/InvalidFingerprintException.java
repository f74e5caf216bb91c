package dev.idempotency.support;

import dev.idempotency.core.InvalidIdempotencyKeyException;

/**
 * The payload of a delivery could not be fingerprinted: its fingerprint expression failed,
 * resolved to {@code null}, or to a value that cannot be serialized. Handled as a key that cannot
 * be resolved: rejected, never retried, dead-lettered by the transport adapters.
 *
 * @since 0.2.0
 */
public class InvalidFingerprintException extends InvalidIdempotencyKeyException {

	public InvalidFingerprintException(String message) {
		super(message);
	}

	public InvalidFingerprintException(String message, Throwable cause) {
		super(message, cause);
	}

}
