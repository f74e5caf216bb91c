package dev.idempotency.sample;

import dev.idempotency.annotation.Idempotent;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Service;

/**
 * Credits loyalty points for placed orders read from Kafka: the effect that must happen once per
 * order, however often Kafka delivers the event.
 * <p>
 * {@code @Idempotent} opens the transaction, records {@code ("points", orderId)} in the
 * {@code idempotency_record} table of the same database (the namespace, named explicitly, is the consumer group's name),
 * runs this method and commits both together; the container commits the offset only after that.
 * A second delivery of the same order finds the row and is skipped. An exception rolls back the
 * balance, the ledger row and the dedup row, so the record is retried and, after the configured
 * attempts, published to {@code orders.DLT}.
 */
@Service
public class PointsService {

	/** The flow name of the points this listener credits. */
	public static final String FLOW = "kafka";

	/** The listener container's id. */
	public static final String LISTENER_ID = "points";

	private final PointsBook points;

	public PointsService(PointsBook points) {
		this.points = points;
	}

	@KafkaListener(id = LISTENER_ID, topics = KafkaFlow.TOPIC, groupId = KafkaFlow.GROUP,
			concurrency = "${demo.partitions:3}")
	// An explicit namespace, as in production: renaming the class or method keeps the keys.
	@Idempotent(key = "#order.orderId", namespace = KafkaFlow.GROUP)
	public void credit(OrderPlaced order) {
		this.points.credit(FLOW, order);
	}

}
