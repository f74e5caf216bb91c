package dev.idempotency.fault;

import java.util.Collection;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * The Kafka side of the {@link EventJournal}: an {@code R} line for each record that reaches the
 * listener (a {@link RecordInterceptor}, or for a batch listener a {@link BatchInterceptor}, which
 * the container calls before the listener), and an {@code A} line for each assignment after a
 * rebalance.
 */
final class KafkaJournal
		implements RecordInterceptor<Object, Object>, BatchInterceptor<Object, Object>, ConsumerAwareRebalanceListener {

	private final EventJournal journal;

	KafkaJournal(EventJournal journal) {
		this.journal = journal;
	}

	@Override
	public ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record,
			Consumer<Object, Object> consumer) {
		String orderId = (record.value() instanceof OrderPlaced order) ? order.orderId() : "?";
		this.journal.received(record.partition(), record.offset(), orderId);
		return record;
	}

	@Override
	public ConsumerRecords<Object, Object> intercept(ConsumerRecords<Object, Object> records,
			Consumer<Object, Object> consumer) {
		records.forEach((record) -> intercept(record, consumer));
		return records;
	}

	@Override
	public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		int generation;
		try {
			generation = consumer.groupMetadata().generationId();
		}
		catch (RuntimeException ex) {
			generation = -1;
		}
		String assigned = partitions.stream()
			.map((partition) -> String.valueOf(partition.partition()))
			.sorted()
			.reduce((a, b) -> a + "," + b)
			.orElse("");
		this.journal.write("A " + generation + " " + (assigned.isEmpty() ? "-" : assigned));
		FaultChild.announce("ASSIGNED generation=" + generation + " partitions=" + assigned);
	}

}
