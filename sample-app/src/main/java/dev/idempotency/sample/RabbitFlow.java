package dev.idempotency.sample;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * The RabbitMQ flow, run when RabbitMQ answers ({@link RabbitDemoInitializer}): the outbox relay
 * publishes the same order events to the run's exchange (routing key {@value #ROUTING_KEY}), which
 * routes them to the run's queue; {@link RabbitPointsService} consumes them, and messages it gives up
 * on go through the queue's dead-letter exchange to {@code <queue>.dlq}.
 */
@Component
@ConditionalOnBooleanProperty(RabbitFlow.ENABLED)
public class RabbitFlow implements OrderFlow {

	/** Whether the flow runs; decided at start-up unless set. */
	public static final String ENABLED = "demo.rabbit.enabled";

	/** The queue of this run. */
	public static final String QUEUE = "demo.rabbit.queue";

	/** The {@code @Idempotent} namespace of the RabbitMQ points service. */
	public static final String NAMESPACE = "rabbit-points";

	/** The routing key the order events are published with. */
	public static final String ROUTING_KEY = "placed";

	private final RabbitTemplate rabbit;

	private final AmqpAdmin admin;

	private final MeterRegistry meters;

	private final OutboxRows outbox;

	private final PointsBook points;

	private final String queue;

	/** Broken messages sent straight to the exchange. */
	private volatile long brokenSent;

	public RabbitFlow(RabbitTemplate rabbit, AmqpAdmin admin, MeterRegistry meters, OutboxRows outbox,
			PointsBook points, DemoProperties demo) {
		this.rabbit = rabbit;
		this.admin = admin;
		this.meters = meters;
		this.outbox = outbox;
		this.points = points;
		this.queue = Objects.requireNonNull(demo.rabbit().queue(), QUEUE);
	}

	/** The exchange of the run whose queue is {@code queue}. */
	static String exchange(String queue) {
		return queue + ".exchange";
	}

	/** The dead-letter exchange of the run whose queue is {@code queue}. */
	static String deadLetterExchange(String queue) {
		return queue + ".dlx";
	}

	/** The dead-letter queue of the run whose queue is {@code queue}: the starter's default suffix. */
	static String deadLetterQueue(String queue) {
		return queue + ".dlq";
	}

	@Override
	public String outboxDestination() {
		return "rabbit:" + exchange(this.queue) + "/" + ROUTING_KEY;
	}

	@Override
	public void sendBroken(DemoOrders orders) {
		for (OrderPlaced order : orders.broken()) {
			this.rabbit.convertAndSend(exchange(this.queue), ROUTING_KEY, order, (message) -> {
				message.getMessageProperties().setMessageId(UUID.randomUUID().toString());
				return message;
			});
		}
		for (int i = 0; i < orders.malformed(); i++) {
			MessageProperties properties = new MessageProperties();
			properties.setMessageId(UUID.randomUUID().toString());
			properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
			this.rabbit.send(exchange(this.queue), ROUTING_KEY,
					new Message(DemoOrders.MALFORMED_PAYLOAD.getBytes(StandardCharsets.UTF_8), properties));
		}
		this.brokenSent = orders.broken().size() + orders.malformed();
	}

	/**
	 * Waits until the queue has nothing left to deliver, every message sent to it had its outcome
	 * (processed, skipped as a duplicate, rejected or dead-lettered) and the dead letters are on the
	 * dead-letter queue.
	 */
	@Override
	public void awaitConsumed(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		long sent = this.outbox.sent(outboxDestination()) + this.brokenSent;
		while (true) {
			long ready = count(this.queue);
			long settled = FlowReport.invocations(this.meters, NAMESPACE, "processed")
					+ FlowReport.invocations(this.meters, NAMESPACE, "duplicate") + count(deadLetterQueue(this.queue));
			if (ready == 0 && settled >= sent) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Queue " + this.queue + " was not consumed within " + timeout
						+ ": " + ready + " messages ready, " + settled + " of " + sent + " settled");
			}
			Thread.sleep(200);
		}
	}

	@Override
	public FlowReport report(DemoOrders orders) {
		long fromOutbox = this.outbox.sent(outboxDestination());
		return new FlowReport("RabbitMQ (exchange " + exchange(this.queue) + ", queue " + this.queue + ")", fromOutbox,
				fromOutbox + orders.broken().size() + orders.malformed(), orders.unique().size(),
				orders.duplicates().size(), FlowReport.invocations(this.meters, NAMESPACE, null),
				FlowReport.invocations(this.meters, NAMESPACE, "processed"),
				FlowReport.invocations(this.meters, NAMESPACE, "duplicate"),
				FlowReport.invocations(this.meters, NAMESPACE, "failed"),
				FlowReport.invocations(this.meters, NAMESPACE, "rejected"), count(deadLetterQueue(this.queue)),
				deadLetterQueue(this.queue), orders.expectedPoints(), this.points.pointsCredited(RabbitPointsService.FLOW),
				this.points.ledgerRows(RabbitPointsService.FLOW));
	}

	/** The run's queue. */
	public String queue() {
		return this.queue;
	}

	/** Messages ready in a queue (not those delivered and not yet acknowledged). */
	private long count(String queue) {
		Properties properties = this.admin.getQueueProperties(queue);
		return (properties != null) ? ((Number) properties.get(RabbitAdmin.QUEUE_MESSAGE_COUNT)).longValue() : 0;
	}

}
