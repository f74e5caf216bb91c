package dev.idempotency.sample;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

import org.springframework.kafka.core.KafkaAdmin;

/**
 * Reads a topic's and a consumer group's offsets, for the Kafka flows' drain and report.
 */
final class KafkaOffsets {

	private KafkaOffsets() {
	}

	/** Records ever written to a topic: the sum of its partitions' end offsets. */
	static long endOffsets(KafkaAdmin admin, String topic) throws Exception {
		try (Admin client = Admin.create(admin.getConfigurationProperties())) {
			List<TopicPartition> partitions = client.describeTopics(List.of(topic))
				.allTopicNames()
				.get(10, TimeUnit.SECONDS)
				.get(topic)
				.partitions()
				.stream()
				.map((info) -> new TopicPartition(topic, info.partition()))
				.toList();
			Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
			partitions.forEach((partition) -> latest.put(partition, OffsetSpec.latest()));
			return client.listOffsets(latest)
				.all()
				.get(10, TimeUnit.SECONDS)
				.values()
				.stream()
				.mapToLong(ListOffsetsResultInfo::offset)
				.sum();
		}
	}

	/** Waits until a group's committed offsets reach the end of every partition of a topic. */
	static void awaitCommitted(KafkaAdmin admin, String group, String topic, Duration timeout) throws Exception {
		long published = endOffsets(admin, topic);
		long deadline = System.nanoTime() + timeout.toNanos();
		try (Admin client = Admin.create(admin.getConfigurationProperties())) {
			while (true) {
				long committed = client.listConsumerGroupOffsets(group)
					.partitionsToOffsetAndMetadata()
					.get(10, TimeUnit.SECONDS)
					.entrySet()
					.stream()
					.filter((entry) -> entry.getKey().topic().equals(topic) && entry.getValue() != null)
					.mapToLong((entry) -> entry.getValue().offset())
					.sum();
				if (committed >= published) {
					return;
				}
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("The " + group + " group committed " + committed + " of "
							+ published + " records of " + topic + " within " + timeout);
				}
				Thread.sleep(200);
			}
		}
	}

}
