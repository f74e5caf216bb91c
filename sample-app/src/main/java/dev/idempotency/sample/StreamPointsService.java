package dev.idempotency.sample;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.redis.stream.RedisStreamListener;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Service;

/**
 * The same points service reading the same orders from a Redis Stream. Its consumer group, and so
 * its {@code @Idempotent} namespace, is {@value RedisStreamFlow#GROUP}: the Kafka and the stream
 * flows credit separately and do not take each other's orders for duplicates.
 * <p>
 * The entry is acknowledged ({@code XACK}) only after the transaction committed. A failing entry
 * stays pending, is claimed again after {@code idempotency.redis.stream.min-idle} and goes to
 * {@code <stream>.dlq} after {@code max-deliveries}.
 */
@Service
@ConditionalOnBooleanProperty(RedisStreamFlow.ENABLED)
public class StreamPointsService {

	/** The flow name of the points this listener credits. */
	public static final String FLOW = "redis-stream";

	private final PointsBook points;

	public StreamPointsService(PointsBook points) {
		this.points = points;
	}

	@RedisStreamListener(id = "stream-points", stream = "${" + RedisStreamFlow.STREAM + "}",
			group = RedisStreamFlow.GROUP)
	@Idempotent(key = "#order.orderId", namespace = RedisStreamFlow.GROUP)
	public void credit(OrderPlaced order) {
		this.points.credit(FLOW, order);
	}

}
