package dev.idempotency.fault;

import dev.idempotency.annotation.Idempotent;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.kafka.annotation.KafkaListener;

/**
 * The share-group listener the suite kills. The namespace is the Kafka adapter's default (the
 * group and the method).
 */
class ShareOrderListener {

	private final PointsLedger ledger;

	ShareOrderListener(PointsLedger ledger) {
		this.ledger = ledger;
	}

	@KafkaListener(id = "fault-share-orders", topics = "${fault.topic}", groupId = "${fault.group}",
			containerFactory = "shareFactory")
	@Idempotent(key = "#order.orderId()")
	public void onOrder(OrderPlaced order, ConsumerRecord<String, OrderPlaced> record) {
		this.ledger.credit(order, record.partition(), record.offset());
	}

}
