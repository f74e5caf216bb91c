package dev.idempotency.fault;

import dev.idempotency.annotation.Idempotent;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;

/**
 * The two shapes of the listener the suite kills: one per acknowledgement mode, so that both the
 * container's offset commit ({@code AckMode.RECORD}) and the interceptor's acknowledgement after
 * commit ({@code AckMode.MANUAL_IMMEDIATE}, an {@code Acknowledgment} parameter the method never
 * calls) are exercised. The namespace is the consumer group.
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

}
