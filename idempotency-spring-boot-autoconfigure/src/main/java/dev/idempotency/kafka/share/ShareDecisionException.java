package dev.idempotency.kafka.share;

import org.jspecify.annotations.Nullable;

/**
 * Carries the adapter's decision about a failed record from its listener wrapper to the container's
 * {@code ShareConsumerRecordRecoverer}, which returns it to the container: spring-kafka settles a
 * failed record with what the recoverer returns. The original failure is the cause.
 *
 * @since 0.2.0
 */
public class ShareDecisionException extends RuntimeException {

	private final ShareDecision decision;

	ShareDecisionException(ShareDecision decision, @Nullable Throwable cause) {
		super("Share record settled with " + decision.type() + " (" + decision.reason().tagValue() + ")", cause);
		this.decision = decision;
	}

	/**
	 * The decision.
	 * @return the acknowledgement and its reason
	 */
	public ShareDecision decision() {
		return this.decision;
	}

}
