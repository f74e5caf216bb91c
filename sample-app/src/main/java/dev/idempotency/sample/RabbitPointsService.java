package dev.idempotency.sample;

import dev.idempotency.annotation.Idempotent;

import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Service;

/**
 * The same points service reading the same orders from a RabbitMQ queue, in its own namespace
 * ({@value RabbitFlow#NAMESPACE}), so the flows do not take each other's orders for duplicates.
 * <p>
 * The starter acknowledges the delivery only after the transaction committed. A failing message is
 * retried in place ({@code idempotency.rabbit.retry.*}) and then published, with its cause in
 * headers, to the queue's dead-letter exchange, which routes it to {@code <queue>.dlq}.
 */
@Service
@ConditionalOnBooleanProperty(RabbitFlow.ENABLED)
public class RabbitPointsService {

	/** The flow name of the points this listener credits. */
	public static final String FLOW = "rabbitmq";

	/** The listener's id. */
	public static final String LISTENER_ID = "rabbit-points";

	private final PointsBook points;

	public RabbitPointsService(PointsBook points) {
		this.points = points;
	}

	@RabbitListener(id = LISTENER_ID, queues = "${" + RabbitFlow.QUEUE + "}")
	@Idempotent(key = "#order.orderId", namespace = RabbitFlow.NAMESPACE)
	public void credit(OrderPlaced order) {
		this.points.credit(FLOW, order);
	}

}
