package dev.idempotency.kafka;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.support.TransactionBatch;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.adapter.BatchToRecordAdapter;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.messaging.Message;

/**
 * Calls a record-style {@code @Idempotent} listener with the records of one poll in one
 * transaction (transaction batching, {@link TransactionBatchingContainers}):
 * <ol>
 * <li>Each record is passed to the listener with its own delivery context, inside a
 * {@link TransactionBatch}: the interceptor resolves its key and keeps the call.</li>
 * <li>The batch runs: one transaction, one claim of all the keys, the listener called for each
 * record claimed now, in poll order, one commit. The container then commits the poll's offsets.</li>
 * <li>If anything fails (a record's listener call, the claim, the commit), all is rolled back and
 * the poll runs again record by record, each record in a transaction of its own as without
 * batching. The first record that fails there stops the poll with a
 * {@link BatchListenerFailedException} for it: the error handler commits the offsets before it
 * (their records are committed), retries or dead-letters it as a record, and delivers the records
 * after it again. A batch the interceptor refuses (see {@link TransactionBatch}) runs this way
 * too.</li>
 * </ol>
 * On the happy path a poll costs one transaction; a failure costs the rolled-back attempt once
 * more. When the failed record is delivered again, the records up to it run one by one and the
 * rest as a batch, so that a retried record's method runs once per attempt. Not for Kafka
 * transactions or manual acknowledgement (refused at start-up).
 *
 * @since 0.2.0
 */
public class TransactionBatchingAdapter implements BatchToRecordAdapter<Object, Object> {

	private static final Log logger = LogFactory.getLog(TransactionBatchingAdapter.class);

	private final String listenerId;

	// Partition to offset of the last record that failed there, shared by the consumer threads of
	// a concurrent container (each partition has one).
	private final Map<TopicPartition, Long> failed = new ConcurrentHashMap<>();

	private volatile boolean refusalLogged;

	/**
	 * Creates the adapter of one listener.
	 * @param listenerId the listener's id, for log messages
	 */
	public TransactionBatchingAdapter(String listenerId) {
		this.listenerId = listenerId;
	}

	@Override
	public void adapt(List<Message<?>> messages, List<ConsumerRecord<Object, Object>> records,
			@Nullable Acknowledgment ack, Consumer<?, ?> consumer, Callback<Object, Object> callback) {
		if (records.isEmpty()) {
			return;
		}
		Poll poll = new Poll(messages, records, ack, consumer, callback,
				KafkaDeliveryContextInterceptor.groupId(consumer));
		DeliveryContext bound = DeliveryContextHolder.current();
		try {
			// A record that failed before is delivered again: up to it, one by one, so that its
			// method does not run twice per attempt (in a rolled-back batch, then alone).
			int retried = afterLastFailed(records);
			oneByOne(poll, 0, retried);
			oneByOne(poll, inOneTransaction(poll, retried), records.size());
		}
		finally {
			if (bound != null) {
				DeliveryContextHolder.set(bound);
			}
			else {
				DeliveryContextHolder.clear();
			}
		}
	}

	/** The index after the last record of the poll that failed in an earlier poll, else 0. */
	private int afterLastFailed(List<ConsumerRecord<Object, Object>> records) {
		if (this.failed.isEmpty()) {
			return 0;
		}
		for (int i = records.size() - 1; i >= 0; i--) {
			ConsumerRecord<Object, Object> record = records.get(i);
			Long offset = this.failed.get(new TopicPartition(record.topic(), record.partition()));
			if (offset != null && offset == record.offset()) {
				return i + 1;
			}
		}
		return 0;
	}

	/**
	 * Collects the calls of the records from {@code from} on and runs them as one batch.
	 * @return the index of the first record not settled: the end of the poll when the batch
	 * committed, {@code from} when the records must run one by one
	 */
	private int inOneTransaction(Poll poll, int from) {
		int end = poll.records().size();
		if (from >= end) {
			return end;
		}
		TransactionBatch batch = TransactionBatch.open();
		try {
			for (int i = from; i < end; i++) {
				poll.bind(i);
				int seen = batch.seen();
				try {
					poll.invoke(i);
				}
				catch (RuntimeException ex) {
					// Failed before the method ran (a conversion, the interceptor's set-up): one by one,
					// where the record path handles it.
					logRefusal("record " + i + " could not be passed to the listener: " + ex);
					return from;
				}
				if (batch.seen() == seen) {
					// Not @Idempotent after all: the call ran on its own, as a record listener's would.
					if (i == from) {
						return from + 1;
					}
					throw new IllegalStateException("Listener " + this.listenerId + " ran record " + i
							+ " of a transaction batch on its own after collecting the records before it");
				}
			}
		}
		finally {
			batch.close();
		}
		if (batch.refusal() != null) {
			logRefusal(batch.refusal());
			return from;
		}
		try {
			batch.run();
			settled(poll.records());
			return end;
		}
		catch (Throwable ex) {
			if (ex instanceof VirtualMachineError error) {
				throw error;
			}
			if (logger.isDebugEnabled()) {
				logger.debug("Transaction batch of " + (end - from) + " records of listener " + this.listenerId
						+ " rolled back; running them one by one", ex);
			}
			return from;
		}
	}

	/** Forgets the records that failed in the partitions of a committed poll: they are settled. */
	private void settled(List<ConsumerRecord<Object, Object>> records) {
		if (!this.failed.isEmpty()) {
			for (ConsumerRecord<Object, Object> record : records) {
				this.failed.remove(new TopicPartition(record.topic(), record.partition()));
			}
		}
	}

	/**
	 * Runs records {@code from} (inclusive) to {@code to} (exclusive) one by one, each in its own
	 * transaction; stops at the first that fails, naming it to the error handler.
	 */
	private void oneByOne(Poll poll, int from, int to) {
		for (int i = from; i < to; i++) {
			ConsumerRecord<Object, Object> record = poll.records().get(i);
			TopicPartition partition = new TopicPartition(record.topic(), record.partition());
			poll.bind(i);
			try {
				poll.invoke(i);
			}
			catch (RuntimeException ex) {
				this.failed.put(partition, record.offset());
				throw new BatchListenerFailedException("Record " + i + " of " + poll.records().size()
						+ " failed (the records before it are committed)", ex, record);
			}
			this.failed.remove(partition, record.offset());
		}
	}

	private void logRefusal(String reason) {
		if (!this.refusalLogged) {
			this.refusalLogged = true;
			logger.warn("Listener " + this.listenerId + " runs record by record, not in one transaction per poll: "
					+ reason + " (logged once; at DEBUG each time)");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Listener " + this.listenerId + " runs record by record: " + reason);
		}
	}

	/** One poll and how to call the listener with one of its records. */
	private record Poll(List<Message<?>> messages, List<ConsumerRecord<Object, Object>> records,
			@Nullable Acknowledgment ack, Consumer<?, ?> consumer, Callback<Object, Object> callback,
			@Nullable String groupId) {

		void bind(int index) {
			ConsumerRecord<Object, Object> record = this.records.get(index);
			DeliveryContextHolder.set(KafkaDeliveryContextInterceptor.deliveryOf(record, this.groupId));
		}

		void invoke(int index) {
			this.callback.invoke(this.records.get(index), this.ack, this.consumer, this.messages.get(index));
		}

	}

}
