package dev.idempotency.fault;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * What the Kafka child consumers share, seen from the parent: an in-process KRaft broker (tuned so
 * that a killed member leaves its group within seconds), the {@link FaultDatabase}, a producer, and
 * the admin queries the assertions need.
 */
final class FaultCluster implements AutoCloseable {

	private final EmbeddedKafkaKraftBroker broker;

	private final AdminClient admin;

	/** Replaced after a failed send; sends and topic creations hold the cluster's lock. */
	private KafkaProducer<String, byte[]> producer;

	private final FaultDatabase database;

	private final String runId;

	private final Path directory;

	FaultCluster(String name) {
		this.runId = name + "-" + UUID.randomUUID().toString().substring(0, 8);
		this.directory = runDirectory(this.runId);
		this.broker = new EmbeddedKafkaKraftBroker(1, 4);
		this.broker.brokerProperties(Map.of("group.min.session.timeout.ms", "1000",
				"group.initial.rebalance.delay.ms", "0", "offsets.topic.num.partitions", "1",
				"auto.create.topics.enable", "false"));
		this.broker.afterPropertiesSet();
		this.admin = AdminClient.create(Map.of("bootstrap.servers", this.broker.getBrokersAsString()));
		this.producer = newProducer();
		this.database = new FaultDatabase(this.runId);
	}

	/** Where a run leaves its children's logs and journals, and its reports. */
	static Path runDirectory(String runId) {
		return Path.of("target", "fault-injection", runId).toAbsolutePath();
	}

	String runId() {
		return this.runId;
	}

	Path directory() {
		return this.directory;
	}

	FaultDatabase database() {
		return this.database;
	}

	String bootstrapServers() {
		return this.broker.getBrokersAsString();
	}

	synchronized void createTopic(String topic, int partitions) {
		this.broker.addTopics(new NewTopic(topic, partitions, (short) 1), new NewTopic(topic + ".DLT", 1, (short) 1));
		awaitLeaders(topic, partitions);
		awaitLeaders(topic + ".DLT", 1);
	}

	/**
	 * Waits until the producer knows a leader for every partition: a send right after the topic's
	 * creation could otherwise fail on the in-process broker while leadership settles (seen once in
	 * CI as "Could not send a record").
	 */
	private void awaitLeaders(String topic, int partitions) {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (true) {
			List<org.apache.kafka.common.PartitionInfo> infos = this.producer.partitionsFor(topic);
			if (infos.size() == partitions && infos.stream().allMatch((info) -> info.leader() != null
					&& !info.leader().isEmpty())) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("No leader for every partition of " + topic + ": " + infos);
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	/**
	 * The system properties of a consumer of {@code topic} in {@code group}.
	 * @param applicationName the child's {@code ApplicationName} in PostgreSQL, so that the suite can
	 * find and terminate its connections
	 */
	Map<String, String> consumerProperties(String topic, String group, String applicationName) {
		Map<String, String> properties = new LinkedHashMap<>(this.database.consumerProperties(applicationName));
		properties.put("spring.kafka.bootstrap-servers", bootstrapServers());
		properties.put("fault.topic", topic);
		properties.put("fault.group", group);
		// A last resort against orphans (a child also exits when its stdin, our pipe, ends).
		properties.put("fault.max-lifetime-seconds", "7200");
		return properties;
	}

	/**
	 * Sends the records and waits until the broker has them all. A failed send is retried once with a
	 * new producer, and only when no record of this call reached any of its topics (their end offsets
	 * did not move), so that a retry can never add a second copy; otherwise it fails with the cause. One
	 * call at a time: scenarios running at the same time share the producer, which a retry replaces.
	 */
	synchronized void sendAndFlush(List<ProducerRecord<String, byte[]>> records) {
		Map<String, Long> before = totalEndOffsets(records);
		try {
			send(records);
		}
		catch (IllegalStateException ex) {
			Map<String, Long> after = totalEndOffsets(records);
			if (!after.equals(before)) {
				throw new IllegalStateException(ex.getMessage() + "; not retried: end offsets moved from " + before
						+ " to " + after, ex.getCause());
			}
			System.out.printf("[cluster %s] %s; nothing landed (end offsets %s): retrying with a new producer%n",
					this.runId, ex.getMessage(), after);
			this.producer.close(Duration.ofSeconds(10));
			this.producer = newProducer();
			send(records);
		}
	}

	private void send(List<ProducerRecord<String, byte[]>> records) {
		List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
		for (ProducerRecord<String, byte[]> record : records) {
			sent.add(this.producer.send(record));
		}
		this.producer.flush();
		for (java.util.concurrent.Future<?> future : sent) {
			try {
				future.get(30, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				Throwable cause = (ex instanceof java.util.concurrent.ExecutionException) ? ex.getCause() : ex;
				throw new IllegalStateException("Could not send a record: " + cause, cause);
			}
		}
	}

	/** The sum of the end offsets of each topic the records go to. */
	private Map<String, Long> totalEndOffsets(List<ProducerRecord<String, byte[]>> records) {
		Map<String, Long> totals = new java.util.TreeMap<>();
		for (String topic : records.stream().map(ProducerRecord::topic).distinct().toList()) {
			int partitions = this.producer.partitionsFor(topic).size();
			totals.put(topic, endOffsets(topic, partitions).values().stream().mapToLong(Long::longValue).sum());
		}
		return totals;
	}

	private KafkaProducer<String, byte[]> newProducer() {
		return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString(),
				ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
				ProducerConfig.LINGER_MS_CONFIG, "5"), new StringSerializer(), new ByteArraySerializer());
	}

	static byte[] json(String orderId, String userId, long points) {
		String id = (orderId != null) ? "\"" + orderId + "\"" : "null";
		return ("{\"orderId\":" + id + ",\"userId\":\"" + userId + "\",\"points\":" + points + "}")
			.getBytes(StandardCharsets.UTF_8);
	}

	/** The group's committed offset of each partition (absent when nothing was committed). */
	Map<Integer, Long> committedOffsets(String group) {
		try {
			Map<TopicPartition, OffsetAndMetadata> offsets = this.admin.listConsumerGroupOffsets(group)
				.partitionsToOffsetAndMetadata()
				.get(30, TimeUnit.SECONDS);
			Map<Integer, Long> result = new HashMap<>();
			offsets.forEach((partition, offset) -> {
				if (offset != null) {
					result.put(partition.partition(), offset.offset());
				}
			});
			return result;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The end offset of each partition of {@code topic}. */
	Map<Integer, Long> endOffsets(String topic, int partitions) {
		Map<TopicPartition, OffsetSpec> request = new HashMap<>();
		for (int i = 0; i < partitions; i++) {
			request.put(new TopicPartition(topic, i), OffsetSpec.latest());
		}
		try {
			return this.admin.listOffsets(request)
				.all()
				.get(30, TimeUnit.SECONDS)
				.entrySet()
				.stream()
				.collect(Collectors.toMap((entry) -> entry.getKey().partition(), (entry) -> entry.getValue().offset()));
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** True when the group's committed offsets reached the end of every partition. */
	boolean caughtUp(String group, String topic, int partitions) {
		Map<Integer, Long> committed = committedOffsets(group);
		Map<Integer, Long> end = endOffsets(topic, partitions);
		return end.entrySet()
			.stream()
			.allMatch((entry) -> entry.getValue() == 0 || entry.getValue().equals(committed.get(entry.getKey())));
	}

	/** Every record of {@code topic} (read from the beginning by a throw-away group). */
	List<ConsumerRecord<String, byte[]>> readAll(String topic, int partitions) {
		Map<Integer, Long> end = endOffsets(topic, partitions);
		List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
		try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(), ConsumerConfig.GROUP_ID_CONFIG,
						"reader-" + UUID.randomUUID(), ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
				new StringDeserializer(), new ByteArrayDeserializer())) {
			List<TopicPartition> assignment = new ArrayList<>();
			for (int i = 0; i < partitions; i++) {
				assignment.add(new TopicPartition(topic, i));
			}
			consumer.assign(assignment);
			consumer.seekToBeginning(assignment);
			long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
			while (System.nanoTime() < deadline && assignment.stream()
				.anyMatch((partition) -> consumer.position(partition) < end.get(partition.partition()))) {
				consumer.poll(Duration.ofMillis(200)).forEach(records::add);
			}
		}
		return records;
	}

	@Override
	public void close() {
		ChildConsumer.destroyAll();
		try {
			this.producer.close(Duration.ofSeconds(10));
			this.admin.close(Duration.ofSeconds(10));
		}
		finally {
			try {
				this.broker.destroy();
			}
			finally {
				this.database.close();
			}
		}
	}

}
