package dev.idempotency.benchmarks.rabbit;

import java.util.Map;

import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.LedgerTables;

import org.springframework.amqp.core.MessageListenerContainer;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A variant of the RabbitMQ suite: one Spring Boot application with one listener on its own durable
 * queue, whose container is started for each round and stopped after it.
 */
final class RabbitListenerApp implements AutoCloseable {

	/**
	 * The id of every variant's {@code @RabbitListener}: one per application; its consumer threads are
	 * named after it.
	 */
	static final String LISTENER_ID = "${bench.listener-id}";

	private final String name;

	private final int concurrency;

	private final String queue;

	private final String listenerId;

	private final ConfigurableApplicationContext context;

	private final MessageListenerContainer container;

	RabbitListenerApp(String name, int concurrency, String runId, Database database) {
		this.name = name;
		this.concurrency = concurrency;
		this.queue = "bench-rabbit-" + runId + "-" + name + "-c" + concurrency;
		this.listenerId = "bench-" + name + "-c" + concurrency;
		Class<?> listener = switch (name) {
			case "hand" -> HandRabbitListener.class;
			case "starter" -> StarterRabbitListener.class;
			default -> throw new IllegalArgumentException("Unknown variant '" + name + "'; use hand or starter");
		};
		// Spring Boot's default pool and container settings (prefetch 250), the database's default
		// isolation: the configuration a user gets without tuning.
		Map<String, Object> properties = BootApps.defaultPoolProperties(database);
		properties.put("spring.rabbitmq.host", RabbitRounds.HOST);
		properties.put("spring.rabbitmq.port", RabbitRounds.PORT);
		properties.put("spring.rabbitmq.listener.simple.concurrency", concurrency);
		properties.put("spring.rabbitmq.listener.simple.max-concurrency", concurrency);
		properties.put("bench.queue", this.queue);
		properties.put("bench.listener-id", this.listenerId);
		properties.put("bench.database", database.id());
		properties.put("idempotency.enabled", name.startsWith("starter"));
		properties.put("idempotency.store.type", "jdbc");
		properties.put("idempotency.retention", "1h");
		properties.put("idempotency.jdbc.table-name", LedgerTables.DEDUP_TABLE);
		properties.put("idempotency.jdbc.initialize-schema", "never");
		properties.put("idempotency.jdbc.purge.enabled", "false");
		this.context = BootApps.run(properties, RabbitApp.class, listener);
		this.container = this.context.getBean(RabbitListenerEndpointRegistry.class)
			.getListenerContainer(this.listenerId);
	}

	String name() {
		return this.name;
	}

	int concurrency() {
		return this.concurrency;
	}

	String queue() {
		return this.queue;
	}

	/** The prefix of this variant's consumer thread names. */
	String consumerThreadPrefix() {
		return this.listenerId + "-";
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
		this.context.close();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class RabbitApp {

		/** The hand-written statements and timestamp binds of the database under test. */
		@Bean
		LedgerTables ledgerTables(@Value("${bench.database}") String database) {
			return LedgerTables.of(Database.of(database));
		}

		@Bean
		Queue benchQueue(@Value("${bench.queue}") String queue) {
			return new Queue(queue, true);
		}

	}

}
