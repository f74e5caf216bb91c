package dev.idempotency.fault;

/**
 * The event the consumer credits points for. A blank {@code orderId} is a poison message (no
 * idempotency key: rejected, dead-lettered at once); negative {@code points} is a poison message the
 * business code refuses on every attempt (failed, retried, then dead-lettered).
 *
 * @param orderId the business key
 * @param userId whose account is credited
 * @param points how many points
 */
public record OrderPlaced(String orderId, String userId, long points) {
}
