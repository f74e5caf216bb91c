package dev.idempotency.rabbit.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.idempotency.rabbit.RabbitListenerContainers;

import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of the listener containers the RabbitMQ adapter adapted ({@code @Idempotent}
 * {@code @RabbitListener} methods). DOWN when a container that starts with the application is not
 * running: it stopped by itself (its queue is missing and the container treats that as fatal, or its
 * consumers failed for good), so its messages wait in the queue with nobody consuming them. A
 * container that does not start with the application is reported, not held against the health. The
 * broker's own health is Spring Boot's {@code rabbit} indicator; a listener paused by fail-closed is
 * the starter's listeners indicator's.
 * <p>
 * Details, per listener id under {@code listeners}: {@code queues}, {@code running}, {@code autoStartup}
 * and, for simple containers, {@code activeConsumers}.
 *
 * @since 0.2.0
 */
public class IdempotencyRabbitHealthIndicator implements HealthIndicator {

	private final Supplier<List<AbstractMessageListenerContainer>> containers;

	/**
	 * Creates the indicator.
	 * @param containers the adapted containers
	 */
	public IdempotencyRabbitHealthIndicator(RabbitListenerContainers containers) {
		this(containers::adaptedContainers);
	}

	IdempotencyRabbitHealthIndicator(Supplier<List<AbstractMessageListenerContainer>> containers) {
		this.containers = containers;
	}

	@Override
	public Health health() {
		boolean down = false;
		Map<String, Object> listeners = new LinkedHashMap<>();
		for (AbstractMessageListenerContainer container : this.containers.get()) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("queues", List.of(container.getQueueNames()));
			details.put("running", container.isRunning());
			details.put("autoStartup", container.isAutoStartup());
			if (container instanceof SimpleMessageListenerContainer simple) {
				details.put("activeConsumers", simple.getActiveConsumerCount());
			}
			down |= container.isAutoStartup() && !container.isRunning();
			String id = container.getListenerId();
			listeners.put((id != null) ? id : String.join(",", container.getQueueNames()), details);
		}
		return (down ? Health.down() : Health.up()).withDetail("listeners", listeners).build();
	}

}
