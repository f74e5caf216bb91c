package dev.idempotency.fault;

import java.util.Collection;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * The Kafka side of the {@link EventJournal}: an {@code R} line for each record that reaches the
 * listener (a {@link RecordInterceptor}, or for a batch listener a {@link BatchInterceptor}, which
 * the container calls before the listener), and an {@code A} line for each assignment after a
 * rebalance.
 * <p>
 * A batch container (a batch listener, or a record listener switched to transaction batching)
 * hands the listener the records it could not deserialize too; a record listener never receives
 * them, so they get no {@code R} line here either. When a poll fails at one record (a
 * {@link BatchListenerFailedException}), the records after it in the poll reached the listener but
 * are neither settled nor dead-lettered: the error handler delivers them again. Each gets an
 * {@code N} line, so the journal can tell them from the deliveries in flight at a kill.
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
		records.forEach((record) -> {
			if (reachesTheListener(record)) {
				intercept(record, consumer);
			}
		});
		return records;
	}

	@Override
	public void failure(ConsumerRecords<Object, Object> records, Exception exception,
			Consumer<Object, Object> consumer) {
		BatchListenerFailedException failed = findFailedRecord(exception);
		if (failed == null) {
			return;
		}
		int index = 0;
		int failedAt = -1;
		for (ConsumerRecord<Object, Object> record : records) {
			if (failedAt < 0 && (sameRecord(record, failed.getRecord()) || index == failed.getIndex())) {
				failedAt = index;
			}
			else if (failedAt >= 0 && reachesTheListener(record)) {
				String orderId = ((OrderPlaced) record.value()).orderId();
				this.journal.returned(record.partition(), record.offset(), orderId);
			}
			index++;
		}
	}

	private static boolean reachesTheListener(ConsumerRecord<Object, Object> record) {
		return record.value() != null;
	}

	private static boolean sameRecord(ConsumerRecord<Object, Object> record, ConsumerRecord<?, ?> failed) {
		return failed != null && failed.topic().equals(record.topic()) && failed.partition() == record.partition()
				&& failed.offset() == record.offset();
	}

	private static BatchListenerFailedException findFailedRecord(Throwable exception) {
		Throwable cause = exception;
		while (cause != null) {
			if (cause instanceof BatchListenerFailedException failed) {
				return failed;
			}
			cause = (cause.getCause() != cause) ? cause.getCause() : null;
		}
		return null;
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
