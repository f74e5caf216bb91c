package dev.idempotency.fault;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.redis.stream.RedisStreamListener;

import org.springframework.data.redis.connection.stream.ObjectRecord;

/**
 * The Redis Stream listener the suite kills: one consumer of the group per child, named by the
 * suite (a new name per incarnation makes the dead consumer's pending entries reach the next one
 * through XAUTOCLAIM; a reused name makes the restarted consumer read its own pending entries
 * first). The namespace is the group. In the ledger, an entry's partition and offset are the
 * sequence and millisecond parts of its record id.
 */
class StreamOrderListener {

	private final PointsLedger ledger;

	StreamOrderListener(PointsLedger ledger) {
		this.ledger = ledger;
	}

	@RedisStreamListener(id = "fault-orders", stream = "${fault.stream}", group = "${fault.group}",
			consumer = "${fault.consumer}")
	@Idempotent(key = "#entry.value.orderId")
	public void onOrder(ObjectRecord<String, OrderPlaced> entry) {
		this.ledger.credit(entry.getValue(), entry.getId().getSequence().intValue(), entry.getId().getTimestamp());
	}

}
