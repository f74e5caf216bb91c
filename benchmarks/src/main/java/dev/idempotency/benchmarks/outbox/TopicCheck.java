package dev.idempotency.benchmarks.outbox;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import dev.idempotency.core.DeliveryContext;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a topic from the start and checks that it holds every message id exactly once, nothing else. */
final class TopicCheck {

	private TopicCheck() {
	}

	/** The verdict: {@code OK, ...} or {@code WRONG — ...}, with the counts. */
	static String verify(String brokers, String topic, List<String> ids) {
		return verify(brokers, topic, ids, (record) -> {
			Header header = record.headers().lastHeader(DeliveryContext.MESSAGE_ID_HEADER);
			return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : "<none>";
		});
	}

	/**
	 * The verdict over the ids {@code idOf} reads from each record: {@code OK, ...} or
	 * {@code WRONG — ...}, with the counts.
	 */
	static String verify(String brokers, String topic, List<String> ids,
			Function<ConsumerRecord<String, String>, String> idOf) {
		Map<String, Integer> seen = new HashMap<>();
		int records = 0;
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers,
				ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000, ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
				new StringDeserializer(), new StringDeserializer())) {
			List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (System.nanoTime() < deadline
					&& partitions.stream().anyMatch((p) -> consumer.position(p) < end.get(p))) {
				for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
					records++;
					seen.merge(idOf.apply(record), 1, Integer::sum);
				}
			}
		}
		long missing = ids.stream().filter((id) -> !seen.containsKey(id)).count();
		long twice = seen.values().stream().filter((n) -> n > 1).count();
		Set<String> expected = new HashSet<>(ids);
		long unknown = seen.keySet().stream().filter((id) -> !expected.contains(id)).count();
		String counts = "records=" + records + " ids=" + ids.size();
		if (missing == 0 && twice == 0 && unknown == 0 && records == ids.size()) {
			return "OK, every message id once (" + counts + ")";
		}
		return "WRONG — " + missing + " ids missing, " + twice + " ids more than once, " + unknown + " unknown ids ("
				+ counts + ")";
	}

}
