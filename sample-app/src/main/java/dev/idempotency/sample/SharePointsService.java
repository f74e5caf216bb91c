package dev.idempotency.sample;

import dev.idempotency.annotation.Idempotent;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Service;

/**
 * The same points service reading the same orders from a Kafka share group (KIP-932): several
 * consumers take records of one partition, and a record whose acquisition lock expires goes to
 * another consumer, so duplicates are the normal case. Its own namespace ({@value ShareFlow#NAMESPACE})
 * keeps the flows from taking each other's orders for duplicates.
 * <p>
 * The starter accepts a record only after the transaction committed, releases it on a rollback (the
 * broker hands it out again, counting a delivery), and at the last delivery attempt publishes it to
 * {@value ShareFlow#DEAD_LETTER_TOPIC} and rejects it.
 */
@Service
@ConditionalOnBooleanProperty(ShareFlow.ENABLED)
public class SharePointsService {

	/** The flow name of the points this listener credits. */
	public static final String FLOW = "kafka-share";

	/** The listener container's id. */
	public static final String LISTENER_ID = "share-points";

	private final PointsBook points;

	public SharePointsService(PointsBook points) {
		this.points = points;
	}

	@KafkaListener(id = LISTENER_ID, topics = ShareFlow.TOPIC, groupId = ShareFlow.GROUP,
			containerFactory = ShareFlowConfiguration.FACTORY, concurrency = "${demo.kafka-share.consumers:2}")
	@Idempotent(key = "#order.orderId", namespace = ShareFlow.NAMESPACE)
	public void credit(OrderPlaced order) {
		this.points.credit(FLOW, order);
	}

}
