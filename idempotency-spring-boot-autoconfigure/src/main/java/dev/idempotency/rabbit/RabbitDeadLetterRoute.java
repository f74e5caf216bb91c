package dev.idempotency.rabbit;

import org.jspecify.annotations.Nullable;

/**
 * Where the dead letters of one queue go: its dead-letter exchange and, if the queue sets one, the
 * routing key they are published with (else a message keeps its own, as the broker does).
 *
 * @param exchange the dead-letter exchange ({@code x-dead-letter-exchange}), possibly {@code ""}
 * (the default exchange)
 * @param routingKey the dead-letter routing key ({@code x-dead-letter-routing-key}), or {@code null}
 * @since 0.2.0
 */
public record RabbitDeadLetterRoute(String exchange, @Nullable String routingKey) {

	/**
	 * The routing key a dead letter is published with.
	 * @param original the message's own routing key, or {@code null}
	 * @return the route's routing key, else the message's, else {@code ""}
	 */
	public String routingKeyFor(@Nullable String original) {
		if (this.routingKey != null) {
			return this.routingKey;
		}
		return (original != null) ? original : "";
	}

}
