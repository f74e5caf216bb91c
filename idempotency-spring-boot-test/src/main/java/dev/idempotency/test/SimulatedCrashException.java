package dev.idempotency.test;

/**
 * Thrown by the test kit where a consumer would have crashed: after the delivery's transaction
 * committed and before the broker heard the acknowledgement
 * ({@link IdempotencyTester#crashAfterCommit()}). The listener container sees a failed delivery and
 * the broker delivers the message again, which the engine must find a duplicate.
 *
 * @since 0.2.0
 */
public class SimulatedCrashException extends RuntimeException {

	SimulatedCrashException(String message) {
		super(message);
	}

}
