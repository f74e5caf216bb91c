package dev.idempotency.sample;

import org.jspecify.annotations.Nullable;

/**
 * The event the order service publishes once per order; the points service credits
 * {@code points} to {@code userId} for it, once.
 *
 * @param orderId the order's id, the idempotency key; {@code null} only for the demo's
 * deliberately broken messages
 * @param userId the customer who earns the points
 * @param points the points to credit; the demo's poison messages carry a negative amount
 */
public record OrderPlaced(@Nullable String orderId, String userId, long points) {

}
