package dev.idempotency.fault;

import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.annotation.Idempotent;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;

/**
 * The leased consumer's listener: charges each order at the payment provider (an HTTP call, no
 * database transaction), in leased mode, acknowledged by the interceptor after the key is marked
 * completed ({@code AckMode.MANUAL_IMMEDIATE}). Its kill points ({@link FaultPoints}):
 * <ul>
 * <li>{@code before-call}: the key is claimed (in progress under its lease), nothing charged;</li>
 * <li>{@code during-call}: the call is sent with {@value ChargeClient#HOLD_HEADER}, which the stub
 * records as a charge on arrival and then holds; the parent kills this JVM meanwhile, so the charge
 * is made and its answer never seen;</li>
 * <li>{@code after-call}: the provider answered, the method has not returned, so the key is not
 * completed (nothing runs between the method's return and the completion).</li>
 * </ul>
 */
class LeasedChargeListener {

	private final ChargeClient charges;

	private final FaultPoints points;

	LeasedChargeListener(ChargeClient charges, FaultPoints points) {
		this.charges = charges;
		this.points = points;
	}

	@KafkaListener(id = "fault-charges", topics = "${fault.topic}", groupId = "${fault.group}")
	@Idempotent(key = "#msg.orderId", mode = IdempotencyMode.LEASED, lease = "${fault.lease:3s}")
	public void onOrder(OrderPlaced msg, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset, Acknowledgment acknowledgment) {
		FaultPoints.Point point = this.points.onClaimed();
		String where = "key=" + msg.orderId() + " partition=" + partition + " offset=" + offset;
		if (point == FaultPoints.Point.BEFORE_CALL) {
			this.points.stop(point, where);
		}
		boolean hold = point == FaultPoints.Point.DURING_CALL;
		if (hold) {
			FaultChild.announce("POINT during-call " + where);
		}
		this.charges.charge(msg.orderId(), hold);
		if (point == FaultPoints.Point.AFTER_CALL) {
			this.points.stop(point, where);
		}
	}

}
