package dev.idempotency.outbox.rabbit;

import org.jspecify.annotations.Nullable;

/**
 * Where an outbox row goes in RabbitMQ: the target (the destination without {@code rabbit:}) is
 * {@code exchange} or {@code exchange/routing-key}. Without a routing key in the target, the row's
 * key is the routing key (none: the empty routing key). An empty exchange ({@code rabbit:/orders})
 * is the default exchange, which routes to the queue named by the routing key.
 *
 * @param exchange the exchange, empty for the default exchange
 * @param routingKey the routing key, possibly empty
 * @since 0.2.0
 */
public record RabbitDestination(String exchange, String routingKey) {

	/**
	 * Reads a target.
	 * @param target the destination without its {@code rabbit:} prefix
	 * @param key the row's key, or {@code null}
	 * @return the exchange and routing key
	 */
	public static RabbitDestination parse(String target, @Nullable String key) {
		int slash = target.indexOf('/');
		if (slash >= 0) {
			return new RabbitDestination(target.substring(0, slash), target.substring(slash + 1));
		}
		return new RabbitDestination(target, (key != null) ? key : "");
	}

}
