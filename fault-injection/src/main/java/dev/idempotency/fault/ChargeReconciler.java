package dev.idempotency.fault;

import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.UnfinishedClaim;

/**
 * Decides an unfinished charge by asking the provider: {@code charged} is
 * {@link Verdict#COMPLETED}, {@code none} is {@link Verdict#RETRY}, {@code unknown} (the stub's
 * answer for the orders the parent marked) is {@link Verdict#MANUAL}. The key is the order id.
 */
final class ChargeReconciler implements IdempotencyReconciler {

	private final ChargeClient charges;

	ChargeReconciler(ChargeClient charges) {
		this.charges = charges;
	}

	@Override
	public Verdict reconcile(UnfinishedClaim claim) {
		String status = this.charges.status(claim.key().value());
		return switch (status) {
			case "charged" -> Verdict.COMPLETED;
			case "none" -> Verdict.RETRY;
			case "unknown" -> Verdict.MANUAL;
			default -> throw new IllegalStateException("Provider answered '" + status + "' for " + claim.key());
		};
	}

}
