package dev.idempotency.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamProperties;
import io.micrometer.core.instrument.MeterRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.data.redis.connection.stream.StreamInfo.XInfoGroup;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The Redis Stream flow, run when Redis answers ({@link RedisStreamDemoInitializer}): the outbox
 * relay adds the same order events to the run's stream, the {@value #GROUP} group's
 * {@link StreamPointsService} consumes them, and entries it gives up on go to
 * {@code <stream>.dlq}. The run's streams are deleted when the application stops, after its stream
 * listeners and before the Redis connection factory: they are named per run and would otherwise pile
 * up in a shared Redis.
 */
@Component
@ConditionalOnBooleanProperty(RedisStreamFlow.ENABLED)
public class RedisStreamFlow implements OrderFlow, SmartLifecycle {

	/** Whether the flow runs; decided at start-up unless set. */
	public static final String ENABLED = "demo.redis-stream.enabled";

	/** The stream key of this run. */
	public static final String STREAM = "demo.redis-stream.stream";

	/** The consumer group, and so the {@code @Idempotent} namespace, of the stream's points service. */
	public static final String GROUP = "stream-points";

	private final StringRedisTemplate redis;

	private final JsonMapper json;

	private final MeterRegistry meters;

	private final OutboxRows outbox;

	private final PointsBook points;

	private final String stream;

	private final String deadLetterStream;

	private volatile boolean running;

	public RedisStreamFlow(StringRedisTemplate redis, JsonMapper json, MeterRegistry meters, OutboxRows outbox,
			PointsBook points, DemoProperties demo, IdempotencyRedisStreamProperties streamProperties) {
		this.redis = redis;
		this.json = json;
		this.meters = meters;
		this.outbox = outbox;
		this.points = points;
		this.stream = Objects.requireNonNull(demo.redisStream().stream(), STREAM);
		this.deadLetterStream = this.stream + streamProperties.getDeadLetter().getSuffix();
	}

	@Override
	public String outboxDestination() {
		return "redis:" + this.stream;
	}

	@Override
	public void sendBroken(DemoOrders orders) {
		for (OrderPlaced order : orders.broken()) {
			add(this.json.writeValueAsString(order));
		}
		for (int i = 0; i < orders.malformed(); i++) {
			add(DemoOrders.MALFORMED_PAYLOAD);
		}
	}

	private void add(String payload) {
		this.redis.opsForStream()
			.add(StreamRecords.string(Map.of(DeliveryContext.MESSAGE_ID_HEADER, UUID.randomUUID().toString(),
					"payload", payload))
				.withStreamKey(this.stream));
	}

	/**
	 * Waits until the group has read the stream's last entry and has nothing pending: every entry
	 * was acknowledged after its commit, as a duplicate, or after it was dead-lettered.
	 */
	@Override
	public void awaitConsumed(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			String lastAdded = this.redis.opsForStream().info(this.stream).lastGeneratedId();
			XInfoGroup group = this.redis.opsForStream()
				.groups(this.stream)
				.stream()
				.filter((candidate) -> GROUP.equals(candidate.groupName()))
				.findFirst()
				.orElse(null);
			if (group != null && lastAdded.equals(group.lastDeliveredId()) && group.pendingCount() == 0) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The " + GROUP + " group did not finish stream " + this.stream + " within "
						+ timeout + ": " + group);
			}
			Thread.sleep(200);
		}
	}

	@Override
	public FlowReport report(DemoOrders orders) {
		return new FlowReport("Redis Stream (stream " + this.stream + ", group " + GROUP + ")", this.outbox.sent(outboxDestination()),
				length(this.stream), orders.unique().size(), orders.duplicates().size(),
				FlowReport.invocations(this.meters, GROUP, null),
				FlowReport.invocations(this.meters, GROUP, "processed"),
				FlowReport.invocations(this.meters, GROUP, "duplicate"),
				FlowReport.invocations(this.meters, GROUP, "failed"),
				FlowReport.invocations(this.meters, GROUP, "rejected"), length(this.deadLetterStream),
				this.deadLetterStream, orders.expectedPoints(), this.points.pointsCredited(StreamPointsService.FLOW),
				this.points.ledgerRows(StreamPointsService.FLOW));
	}

	/** The stream key of this run. */
	public String stream() {
		return this.stream;
	}

	/** The dead-letter stream of this run. */
	public String deadLetterStream() {
		return this.deadLetterStream;
	}


	private long length(String key) {
		Long length = this.redis.opsForStream().size(key);
		return (length != null) ? length : 0;
	}

	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Deletes the run's streams: after the listener containers stopped, so none reads a deleted
	 * stream or re-creates its group. This bean must not depend on the {@link RedisStreamListenerRegistry}
	 * (it reads the dead-letter suffix from the properties instead): Spring stops a lifecycle bean's
	 * dependents before it, whatever their phases, which deleted the streams while the listeners were
	 * still reading. Taking the registry from an {@code ObjectProvider} in the constructor is not enough:
	 * in AOT mode that was recorded as a dependency too.
	 */
	@Override
	public void stop() {
		this.running = false;
		this.redis.delete(List.of(this.stream, this.deadLetterStream));
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Stops after the stream listeners, and before the Redis connection factory. */
	@Override
	public int getPhase() {
		return RedisStreamListenerRegistry.PHASE - 1;
	}

}
