package dev.idempotency.benchmarks.share;

import java.util.HashMap;
import java.util.Map;

import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Waits;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties.ShareAckMode;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A variant of the share-group suite: one Spring Boot application with one share-group listener, its
 * topic and its share group, whose container is started for each round and stopped after it, and the
 * {@link Acceptances} its listener counts.
 */
final class ShareListenerApp implements AutoCloseable {

	/** The id of every variant's listener: one per application; its consumer threads are named after it. */
	static final String LISTENER_ID = "${bench.listener-id}";

	/** The share container factory's bean name. */
	static final String FACTORY = "benchShareFactory";

	private final String name;

	private final int concurrency;

	private final String topic;

	private final String group;

	private final String listenerId;

	private final ConfigurableApplicationContext context;

	private final MessageListenerContainer container;

	private final Acceptances acceptances;

	ShareListenerApp(String name, int concurrency, String runId, EmbeddedKafkaKraftBroker broker,
			Database database) {
		this.name = name;
		this.concurrency = concurrency;
		this.topic = "bench-share-" + runId + "-" + name + "-c" + concurrency;
		this.group = "bench-share-" + name + "-c" + concurrency + "-" + runId;
		this.listenerId = "bench-" + name + "-c" + concurrency;
		Class<?> listener = switch (name) {
			case "hand" -> HandShareListener.class;
			case "starter" -> StarterShareListener.class;
			default -> throw new IllegalArgumentException("Unknown variant '" + name + "'; use hand or starter");
		};
		broker.addTopics(new NewTopic(this.topic, ShareRounds.PARTITIONS, (short) 1));
		// Spring Boot's default pool and the database's default isolation: what a user gets without tuning.
		Map<String, Object> properties = BootApps.defaultPoolProperties(database);
		properties.put("spring.kafka.bootstrap-servers", broker.getBrokersAsString());
		properties.put("bench.topic", this.topic);
		properties.put("bench.group", this.group);
		properties.put("bench.concurrency", concurrency);
		properties.put("bench.listener-id", this.listenerId);
		properties.put("bench.share-ack-mode", name.equals("hand") ? "MANUAL" : "EXPLICIT");
		properties.put("bench.database", database.id());
		properties.put("idempotency.enabled", name.startsWith("starter"));
		properties.put("idempotency.store.type", "jdbc");
		properties.put("idempotency.retention", "1h");
		properties.put("idempotency.jdbc.table-name", LedgerTables.DEDUP_TABLE);
		properties.put("idempotency.jdbc.initialize-schema", "never");
		properties.put("idempotency.jdbc.purge.enabled", "false");
		this.context = BootApps.run(properties, ShareApp.class, listener);
		this.container = this.context.getBean(KafkaListenerEndpointRegistry.class)
			.getListenerContainer(this.listenerId);
		this.acceptances = this.context.getBean(Acceptances.class);
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

	/** The records this variant's listener accepted; counted from zero each round. */
	Acceptances acceptances() {
		return this.acceptances;
	}

	void start() {
		this.container.start();
	}

	/** Stops the consumers; records they acquired and did not settle go back to the group. */
	void stop() {
		this.container.stop();
		Waits.await(this.name + " stopped", () -> !this.container.isRunning());
	}

	@Override
	public void close() {
		this.container.stop();
		this.context.close();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ShareApp {

		/** The hand-written statements and timestamp binds of the database under test. */
		@Bean
		LedgerTables ledgerTables(@Value("${bench.database}") String database) {
			return LedgerTables.of(Database.of(database));
		}

		/** Counts the accepted records: the hand-written listener's own calls, the starter's share events. */
		@Bean
		Acceptances acceptances() {
			return new Acceptances();
		}

		/** Spring Boot declares no share container factory: the share consumer's defaults, string records. */
		@Bean(FACTORY)
		ShareKafkaListenerContainerFactory<String, String> benchShareFactory(
				@Value("${spring.kafka.bootstrap-servers}") String servers,
				@Value("${bench.share-ack-mode}") ShareAckMode ackMode) {
			Map<String, Object> config = new HashMap<>();
			config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
			config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
			config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
			ShareKafkaListenerContainerFactory<String, String> factory = new ShareKafkaListenerContainerFactory<>(
					new DefaultShareConsumerFactory<>(config));
			factory.getContainerProperties().setShareAckMode(ackMode);
			return factory;
		}

	}

}
