package dev.idempotency.fault;

import dev.idempotency.annotation.Idempotent;

import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.messaging.handler.annotation.Header;

/**
 * The RabbitMQ listener the suite kills. The namespace is the queue's default
 * ({@code <queue>:fault-orders}). In the ledger, a message's partition is 0 and its offset the
 * delivery tag (per channel: not comparable across incarnations).
 */
class RabbitOrderListener {

	private final PointsLedger ledger;

	RabbitOrderListener(PointsLedger ledger) {
		this.ledger = ledger;
	}

	@RabbitListener(id = "fault-orders", queues = "${fault.queue}")
	@Idempotent(key = "#order.orderId()")
	public void onOrder(OrderPlaced order, @Header(AmqpHeaders.DELIVERY_TAG) long deliveryTag) {
		this.ledger.credit(order, 0, deliveryTag);
	}

}
