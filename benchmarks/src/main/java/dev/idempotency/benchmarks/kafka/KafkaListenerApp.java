package dev.idempotency.benchmarks.kafka;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.KafkaRig;
import dev.idempotency.benchmarks.support.VariantApp;
import dev.idempotency.benchmarks.support.Waits;

import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * A variant of the Kafka suite: one Spring Boot application ({@link VariantApp}) with one listener, its
 * topic and its consumer group, whose container is paused and resumed between rounds.
 */
final class KafkaListenerApp implements AutoCloseable {

	private final String topic;

	private final String group;

	private final VariantApp app;

	private final MessageListenerContainer container;

	KafkaListenerApp(String name, int concurrency, String runId, KafkaRig kafka, Database database) {
		this.topic = "bench-kafka-" + runId + "-" + name + "-c" + concurrency;
		this.group = "bench-" + name + "-c" + concurrency + "-" + runId;
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
		kafka.createTopic(this.topic);
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.kafka.bootstrap-servers", kafka.servers());
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
		properties.put("bench.bulk-writes", name.contains("bulk"));
		// The record listener's code, each poll in one transaction (transaction batching).
		properties.put("idempotency.kafka.transaction-batching.enabled", name.endsWith("-batched"));
		this.app = new VariantApp(name, concurrency, database, properties, listener);
		this.container = this.app.context()
			.getBean(KafkaListenerEndpointRegistry.class)
			.getListenerContainer(this.app.listenerId());
		this.container.start();
		Waits.await("partitions assigned to " + name, () -> this.container.getAssignedPartitions() != null
				&& this.container.getAssignedPartitions().size() == KafkaRounds.PARTITIONS);
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

	void pause() {
		this.container.pause();
		Waits.await(name() + " paused", this.container::isContainerPaused);
	}

	void resume() {
		this.container.resume();
	}

	@Override
	public void close() {
		this.container.stop();
		this.app.close();
	}

}
