package dev.idempotency.fault;

import java.util.List;

import dev.idempotency.annotation.Idempotent;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;

/**
 * The shapes of the listener the suite kills: one per acknowledgement mode, so that both the
 * container's offset commit ({@code AckMode.RECORD}) and the interceptor's acknowledgement after
 * commit ({@code AckMode.MANUAL_IMMEDIATE}, an {@code Acknowledgment} parameter the method never
 * calls) are exercised; and a batch listener ({@code AckMode.BATCH}). The namespace is the consumer
 * group.
 */
final class OrderListeners {

	private OrderListeners() {
	}

	/** {@code AckMode.RECORD}: the container commits each offset after the method returned. */
	static class RecordAck {

		private final PointsLedger ledger;

		RecordAck(PointsLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(id = "fault-orders", topics = "${fault.topic}", groupId = "${fault.group}")
		@Idempotent(key = "#msg.orderId")
		public void onOrder(OrderPlaced msg, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) {
			this.ledger.credit(msg, partition, offset);
		}

	}

	/** {@code AckMode.MANUAL_IMMEDIATE}: the interceptor acknowledges after commit. */
	static class ManualAck {

		private final PointsLedger ledger;

		ManualAck(PointsLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(id = "fault-orders", topics = "${fault.topic}", groupId = "${fault.group}")
		@Idempotent(key = "#msg.orderId")
		public void onOrder(OrderPlaced msg, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset, Acknowledgment acknowledgment) {
			this.ledger.credit(msg, partition, offset);
		}

	}

	/**
	 * A batch listener ({@code AckMode.BATCH}): the method gets the records of a poll whose keys
	 * were claimed now, in one transaction; the container commits the batch's offsets after it.
	 */
	static class Batch {

		private final PointsLedger ledger;

		Batch(PointsLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(id = "fault-orders", topics = "${fault.topic}", groupId = "${fault.group}", batch = "true")
		@Idempotent(key = "#element.value().orderId")
		public void onOrders(List<ConsumerRecord<String, OrderPlaced>> records) {
			records.forEach((record) -> this.ledger.credit(record.value(), record.partition(), record.offset()));
		}

	}

}
