package dev.idempotency.benchmarks.rabbit;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.VariantApp;

import org.springframework.amqp.core.MessageListenerContainer;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A variant of the RabbitMQ suite: one Spring Boot application ({@link VariantApp}) with one listener on
 * its own durable queue, whose container is started for each round and stopped after it.
 */
final class RabbitListenerApp implements AutoCloseable {

	private final String queue;

	private final VariantApp app;

	private final MessageListenerContainer container;

	RabbitListenerApp(String name, int concurrency, String runId, Database database) {
		this.queue = "bench-rabbit-" + runId + "-" + name + "-c" + concurrency;
		Class<?> listener = switch (name) {
			case "hand" -> HandRabbitListener.class;
			case "starter" -> StarterRabbitListener.class;
			default -> throw new IllegalArgumentException("Unknown variant '" + name + "'; use hand or starter");
		};
		// Spring Boot's container settings (prefetch 250).
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.rabbitmq.host", RabbitRounds.HOST);
		properties.put("spring.rabbitmq.port", RabbitRounds.PORT);
		properties.put("spring.rabbitmq.listener.simple.concurrency", concurrency);
		properties.put("spring.rabbitmq.listener.simple.max-concurrency", concurrency);
		properties.put("bench.queue", this.queue);
		this.app = new VariantApp(name, concurrency, database, properties, QueueConfiguration.class, listener);
		this.container = this.app.context()
			.getBean(RabbitListenerEndpointRegistry.class)
			.getListenerContainer(this.app.listenerId());
	}

	String name() {
		return this.app.name();
	}

	int concurrency() {
		return this.app.concurrency();
	}

	String queue() {
		return this.queue;
	}

	/** The prefix of this variant's consumer thread names. */
	String consumerThreadPrefix() {
		return this.app.consumerThreadPrefix();
	}

	void start() {
		this.container.start();
	}

	/** Stops the consumers once their deliveries in hand are processed; unacknowledged ones go back. */
	void stop() {
		this.container.stop();
	}

	@Override
	public void close() {
		this.container.stop();
		this.app.close();
	}

	@Configuration(proxyBeanMethods = false)
	static class QueueConfiguration {

		@Bean
		Queue benchQueue(@Value("${bench.queue}") String queue) {
			return new Queue(queue, true);
		}

	}

}
