package dev.idempotency.core;

/**
 * Decides whether a failed delivery is the infrastructure's fault or the message's, for every
 * transport adapter alike (Kafka record and batch listeners, Redis Stream listeners, the outbox
 * relay). The starter's default classifies by exception type along the cause chain and can be
 * extended with properties ({@code idempotency.fail-closed.infrastructure-exceptions},
 * {@code idempotency.fail-closed.message-exceptions}); an application bean of this type replaces
 * it.
 * <p>
 * A key in progress elsewhere ({@link IdempotencyInProgressException}) is neither: adapters handle
 * it before they ask.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface FailureClassifier {

	/**
	 * Classifies a failure. Called on the consumer's thread with what the listener (or the
	 * interceptor around it) threw, possibly wrapped by the transport; must be fast and must not
	 * throw.
	 * @param failure the failure
	 * @return whose fault it was, never {@code null}
	 */
	FailureKind classify(Throwable failure);

}
