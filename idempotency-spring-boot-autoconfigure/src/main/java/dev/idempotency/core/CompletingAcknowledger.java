package dev.idempotency.core;

import java.time.Duration;

/**
 * A {@link MessageAcknowledger} that can mark a leased claim completed and acknowledge the delivery
 * in one atomic step on the server that holds both (the redis-atomic mode: a Redis store and a
 * Redis Stream, one Lua script). After a successful commit the interceptor offers the completion to
 * it first; when it declines, the interceptor calls {@link IdempotencyStore#complete} and then
 * {@link #acknowledge()} as usual.
 *
 * @since 0.1.0
 */
public interface CompletingAcknowledger extends MessageAcknowledger {

	/**
	 * Completes the claim and acknowledges the delivery atomically, if this acknowledger can do so
	 * for {@code store}.
	 * @param store the store that granted the claim
	 * @param key the claimed key
	 * @param claim the granted claim
	 * @param retention how long the completed key is remembered
	 * @return {@code true} if both happened in one step; {@code false} if nothing happened and the
	 * interceptor must complete and acknowledge separately
	 * @throws RuntimeException if the step failed; the delivery is then not acknowledged and the
	 * claim stays until its lease expires
	 */
	boolean completeAndAcknowledge(IdempotencyStore store, IdempotencyKey key, ClaimResult claim, Duration retention);

}
