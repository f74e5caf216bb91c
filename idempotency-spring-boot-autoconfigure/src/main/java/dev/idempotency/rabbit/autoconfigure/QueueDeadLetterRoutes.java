package dev.idempotency.rabbit.autoconfigure;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import dev.idempotency.rabbit.RabbitDeadLetterRoute;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Queue;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The dead-letter route of a queue: its declaration's {@code x-dead-letter-exchange} and
 * {@code x-dead-letter-routing-key} arguments (a {@link Queue} bean, or one in a {@link Declarables}
 * bean), else {@code idempotency.rabbit.dead-letter.exchange} and {@code routing-key}, else none. Each queue's
 * route is resolved once, when first asked for (at start-up, by the containers' check).
 */
final class QueueDeadLetterRoutes implements Function<String, @Nullable RabbitDeadLetterRoute> {

	private static final String EXCHANGE_ARGUMENT = "x-dead-letter-exchange";

	private static final String ROUTING_KEY_ARGUMENT = "x-dead-letter-routing-key";

	private final ObjectProvider<Queue> queues;

	private final ObjectProvider<Declarables> declarables;

	private final IdempotencyRabbitProperties.DeadLetter properties;

	private final Map<String, Holder> routes = new HashMap<>();

	QueueDeadLetterRoutes(ObjectProvider<Queue> queues, ObjectProvider<Declarables> declarables,
			IdempotencyRabbitProperties.DeadLetter properties) {
		this.queues = queues;
		this.declarables = declarables;
		this.properties = properties;
	}

	@Override
	public synchronized @Nullable RabbitDeadLetterRoute apply(String queue) {
		return this.routes.computeIfAbsent(queue, (name) -> new Holder(resolve(name))).route();
	}

	private @Nullable RabbitDeadLetterRoute resolve(String queue) {
		for (Queue declared : this.queues) {
			if (queue.equals(declared.getActualName())) {
				return fromArguments(declared);
			}
		}
		for (Declarables group : this.declarables) {
			for (Queue declared : group.getDeclarablesByType(Queue.class)) {
				if (queue.equals(declared.getActualName())) {
					return fromArguments(declared);
				}
			}
		}
		return fromProperties();
	}

	private @Nullable RabbitDeadLetterRoute fromArguments(Queue queue) {
		Object exchange = queue.getArguments().get(EXCHANGE_ARGUMENT);
		if (exchange == null) {
			return fromProperties();
		}
		Object routingKey = queue.getArguments().get(ROUTING_KEY_ARGUMENT);
		return new RabbitDeadLetterRoute(exchange.toString(), (routingKey != null) ? routingKey.toString() : null);
	}

	private @Nullable RabbitDeadLetterRoute fromProperties() {
		String exchange = this.properties.getExchange();
		return (exchange != null) ? new RabbitDeadLetterRoute(exchange, this.properties.getRoutingKey()) : null;
	}

	private record Holder(@Nullable RabbitDeadLetterRoute route) {
	}

}
