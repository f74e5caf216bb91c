package dev.idempotency.benchmarks.share;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.KafkaRig;
import dev.idempotency.benchmarks.support.VariantApp;
import dev.idempotency.benchmarks.support.Waits;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties.ShareAckMode;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * A variant of the share-group suite: one Spring Boot application ({@link VariantApp}) with one
 * share-group listener, its topic and its share group, whose container is started for each round and
 * stopped after it, and the {@link Acceptances} its listener counts.
 */
final class ShareListenerApp implements AutoCloseable {

	/** The share container factory's bean name. */
	static final String FACTORY = "benchShareFactory";

	private final String topic;

	private final String group;

	private final VariantApp app;

	private final MessageListenerContainer container;

	private final Acceptances acceptances;

	ShareListenerApp(String name, int concurrency, String runId, KafkaRig kafka, Database database) {
		this.topic = "bench-share-" + runId + "-" + name + "-c" + concurrency;
		this.group = "bench-share-" + name + "-c" + concurrency + "-" + runId;
		Class<?> listener = switch (name) {
			case "hand" -> HandShareListener.class;
			case "starter" -> StarterShareListener.class;
			default -> throw new IllegalArgumentException("Unknown variant '" + name + "'; use hand or starter");
		};
		kafka.createTopic(this.topic);
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.kafka.bootstrap-servers", kafka.servers());
		properties.put("bench.topic", this.topic);
		properties.put("bench.group", this.group);
		properties.put("bench.concurrency", concurrency);
		properties.put("bench.share-ack-mode", name.equals("hand") ? "MANUAL" : "EXPLICIT");
		this.app = new VariantApp(name, concurrency, database, properties, ShareConfiguration.class, listener);
		this.container = this.app.context()
			.getBean(KafkaListenerEndpointRegistry.class)
			.getListenerContainer(this.app.listenerId());
		this.acceptances = this.app.context().getBean(Acceptances.class);
	}

	String name() {
		return this.app.name();
	}

	int concurrency() {
		return this.app.concurrency();
	}

	String topic() {
		return this.topic;
	}

	String group() {
		return this.group;
	}

	/** The prefix of this variant's consumer thread names. */
	String consumerThreadPrefix() {
		return this.app.consumerThreadPrefix();
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
		Waits.await(name() + " stopped", () -> !this.container.isRunning());
	}

	@Override
	public void close() {
		this.container.stop();
		this.app.close();
	}

	@Configuration(proxyBeanMethods = false)
	static class ShareConfiguration {

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
