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
 * With transaction batching, the record listener runs in a batch container, which hands the
 * adapter the records it could not deserialize too; a record listener never receives them, so they
 * get no {@code R} line here either. When a poll fails at one record (a
 * {@link BatchListenerFailedException}), the records after it in the poll reached the listener but
 * are neither settled nor dead-lettered: the error handler delivers them again. Each gets an
 * {@code N} line, so the journal can tell them from the deliveries in flight at a kill. A batch
 * listener's journal is as before: its failed invocation tells an outcome for every record.
 */
final class KafkaJournal
		implements RecordInterceptor<Object, Object>, BatchInterceptor<Object, Object>, ConsumerAwareRebalanceListener {

	private final EventJournal journal;

	private final boolean transactionBatching;

	/**
	 * Journals to {@code journal}.
	 * @param transactionBatching whether the record listener runs with transaction batching
	 */
	KafkaJournal(EventJournal journal, boolean transactionBatching) {
		this.journal = journal;
		this.transactionBatching = transactionBatching;
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
			if (!this.transactionBatching || reachesTheListener(record)) {
				intercept(record, consumer);
			}
		});
		return records;
	}

	@Override
	public void failure(ConsumerRecords<Object, Object> records, Exception exception,
			Consumer<Object, Object> consumer) {
		BatchListenerFailedException failed = this.transactionBatching ? findFailedRecord(exception) : null;
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
