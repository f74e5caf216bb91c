package dev.idempotency.benchmarks.kafka;

import java.util.Map;

import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Waits;
import org.apache.kafka.clients.admin.NewTopic;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A variant of the Kafka suite: one Spring Boot application with one listener, its topic and its
 * consumer group, whose container is paused and resumed between rounds.
 */
final class KafkaListenerApp implements AutoCloseable {

	/**
	 * The id of every variant's {@code @KafkaListener}: one per application, so that the consumer
	 * threads ({@code <id>-<n>-C-1}) of one variant can be told from the others'.
	 */
	static final String LISTENER_ID = "${bench.listener-id}";

	private final String name;

	private final int concurrency;

	private final String topic;

	private final String group;

	private final String listenerId;

	private final ConfigurableApplicationContext context;

	private final MessageListenerContainer container;

	KafkaListenerApp(String name, int concurrency, String runId, EmbeddedKafkaKraftBroker broker, Database database) {
		this.name = name;
		this.concurrency = concurrency;
		this.topic = "bench-kafka-" + runId + "-" + name + "-c" + concurrency;
		this.group = "bench-" + name + "-c" + concurrency + "-" + runId;
		this.listenerId = "bench-" + name + "-c" + concurrency;
		Class<?> listener = switch (name) {
			case "hand-record" -> HandRecordListener.class;
			case "plain-record" -> PlainRecordListener.class;
			case "starter-record", "starter-record-batched" -> StarterRecordListener.class;
			case "hand-batch", "hand-bulk-batch" -> HandBatchListener.class;
			case "starter-batch", "starter-bulk-batch" -> StarterBatchListener.class;
			default -> throw new IllegalArgumentException("Unknown variant '" + name + "'; use plain-record,"
					+ " hand-record, starter-record, starter-record-batched, hand-batch, starter-batch,"
					+ " hand-bulk-batch, starter-bulk-batch");
		};
		broker.addTopics(new NewTopic(this.topic, KafkaRounds.PARTITIONS, (short) 1));
		// Spring Boot's default pool (no Hikari settings) and the database's default isolation: the
		// configuration a user gets without tuning.
		Map<String, Object> properties = BootApps.defaultPoolProperties(database);
		properties.put("spring.kafka.bootstrap-servers", broker.getBrokersAsString());
		properties.put("spring.kafka.consumer.group-id", this.group);
		properties.put("spring.kafka.consumer.auto-offset-reset", "earliest");
		properties.put("spring.kafka.consumer.max-poll-records", 500);
		properties.put("spring.kafka.listener.concurrency", concurrency);
		// A paused consumer sits in poll() until this timeout: it bounds the delay of a resume.
		properties.put("spring.kafka.listener.poll-timeout", "50ms");
		properties.put("spring.kafka.listener.type", name.endsWith("batch") ? "batch" : "single");
		if (name.equals("plain-record")) {
			properties.put("spring.kafka.listener.ack-mode", "manual");
		}
		properties.put("bench.topic", this.topic);
		properties.put("bench.listener-id", this.listenerId);
		properties.put("bench.bulk-writes", name.contains("bulk"));
		properties.put("bench.database", database.id());
		properties.put("idempotency.enabled", name.startsWith("starter"));
		// The record listener's code, each poll in one transaction (transaction batching).
		properties.put("idempotency.kafka.transaction-batching.enabled", name.endsWith("-batched"));
		properties.put("idempotency.store.type", "jdbc");
		properties.put("idempotency.retention", "1h");
		properties.put("idempotency.jdbc.table-name", LedgerTables.DEDUP_TABLE);
		properties.put("idempotency.jdbc.initialize-schema", "never");
		properties.put("idempotency.jdbc.purge.enabled", "false");
		this.context = BootApps.run(properties, KafkaApp.class, listener);
		this.container = this.context.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer(this.listenerId);
		this.container.start();
		Waits.await("partitions assigned to " + name, () -> this.container.getAssignedPartitions() != null
				&& this.container.getAssignedPartitions().size() == KafkaRounds.PARTITIONS);
	}

	String name() {
		return this.name;
	}

	int concurrency() {
		return this.concurrency;
	}

	String topic() {
		return this.topic;
	}

	String group() {
		return this.group;
	}

	/** The prefix of this variant's consumer thread names. */
	String consumerThreadPrefix() {
		return this.listenerId + "-";
	}

	void pause() {
		this.container.pause();
		Waits.await(this.name + " paused", this.container::isContainerPaused);
	}

	void resume() {
		this.container.resume();
	}

	@Override
	public void close() {
		this.container.stop();
		this.context.close();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class KafkaApp {

		/** The hand-written statements and timestamp binds of the database under test. */
		@Bean
		LedgerTables ledgerTables(@Value("${bench.database}") String database) {
			return LedgerTables.of(Database.of(database));
		}

	}

}
