package dev.idempotency.benchmarks.support;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The Kafka side of a Kafka suite's run: an in-process KRaft broker (one), an admin client and a
 * producer; creates the variants' topics and fills them with a round's records (key = the message's
 * key, value {@code account:amount}), partitioned by that key or, on request, by the account.
 */
public final class KafkaRig implements AutoCloseable {

	private final int partitions;

	private final EmbeddedKafkaKraftBroker broker;

	private final Admin admin;

	private final KafkaProducer<String, String> producer;

	/**
	 * Starts the broker with {@code partitions} partitions per topic and {@code brokerProperties}
	 * over its defaults.
	 */
	public KafkaRig(int partitions, Map<String, String> brokerProperties) {
		this.partitions = partitions;
		this.broker = new EmbeddedKafkaKraftBroker(1, partitions);
		this.broker.brokerProperties(brokerProperties);
		this.broker.afterPropertiesSet();
		this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers()));
		this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers(),
				ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new StringSerializer());
	}

	/** The broker's bootstrap servers. */
	public String servers() {
		return this.broker.getBrokersAsString();
	}

	public Admin admin() {
		return this.admin;
	}

	/** Creates {@code topic} with the rig's partitions. */
	public void createTopic(String topic) {
		this.broker.addTopics(new NewTopic(topic, this.partitions, (short) 1));
	}

	/** Sends the next {@code messages} of {@code source} to {@code topic} and waits until all are written. */
	public void produce(String topic, MessageStream source, int messages) {
		produce(topic, source, messages, false);
	}

	/**
	 * Sends the next {@code messages} of {@code source} to {@code topic} and waits until all are
	 * written.
	 * @param byAccount whether each record goes to the partition its account would be sent to as its
	 * key (the default partitioner's choice for that key), so that each account is credited from one
	 * partition, by one consumer; otherwise the partition follows the record's key, the business key
	 */
	public void produce(String topic, MessageStream source, int messages, boolean byAccount) {
		for (int i = 0; i < messages; i++) {
			Message message = source.next();
			Integer partition = byAccount ? partitionOf(Integer.toString(message.getAccount())) : null;
			this.producer.send(new ProducerRecord<>(topic, partition, message.getKey(),
					message.getAccount() + ":" + message.getAmount()));
		}
		this.producer.flush();
	}

	/** The partition Kafka's default partitioner picks for a record with this key. */
	private int partitionOf(String key) {
		return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % this.partitions;
	}

	/** The end offset of each partition of {@code topic}. */
	public Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
		Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
		for (int p = 0; p < this.partitions; p++) {
			latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
		}
		return this.admin.listOffsets(latest)
			.all()
			.get()
			.entrySet()
			.stream()
			.collect(Collectors.toMap(Map.Entry::getKey, (entry) -> entry.getValue().offset()));
	}

	@Override
	public void close() {
		this.producer.close();
		this.admin.close();
		this.broker.destroy();
	}

}
