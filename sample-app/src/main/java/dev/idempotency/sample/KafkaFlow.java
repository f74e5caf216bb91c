package dev.idempotency.sample;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.idempotency.core.DeliveryContext;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.stereotype.Component;

/**
 * The Kafka flow: the outbox relay sends order events to the {@value #TOPIC} topic, the
 * {@value #GROUP} group's {@link PointsService} consumes them, and records it gives up on go to
 * {@value #DEAD_LETTER_TOPIC}.
 */
@Component
public class KafkaFlow implements OrderFlow {

	/** The topic orders are published to. */
	public static final String TOPIC = "orders";

	/** Where records that could not be processed end up (the starter's default suffix). */
	public static final String DEAD_LETTER_TOPIC = TOPIC + ".DLT";

	/** The consumer group of the points service, and the namespace its {@code @Idempotent} names. */
	public static final String GROUP = "points";

	private final KafkaTemplate<Object, Object> kafka;

	private final KafkaAdmin admin;

	private final KafkaListenerEndpointRegistry listeners;

	private final MeterRegistry meters;

	private final OutboxRows outbox;

	private final PointsBook points;

	public KafkaFlow(KafkaTemplate<Object, Object> kafka, KafkaAdmin admin, KafkaListenerEndpointRegistry listeners,
			MeterRegistry meters, OutboxRows outbox,
			PointsBook points) {
		this.kafka = kafka;
		this.admin = admin;
		this.listeners = listeners;
		this.meters = meters;
		this.outbox = outbox;
		this.points = points;
	}

	@Override
	public String outboxDestination() {
		return "kafka:" + TOPIC;
	}

	/**
	 * Waits until every consumer thread of the listener holds a partition. A rebalance while a poison
	 * record is being retried restarts its attempts, which would blur the failed-attempts count.
	 */
	@Override
	public void awaitReady(Duration timeout) throws InterruptedException {
		MessageListenerContainer container = this.listeners.getListenerContainer(PointsService.LISTENER_ID);
		long deadline = System.nanoTime() + timeout.toNanos();
		while (container == null || !allConsumersAssigned(container)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The " + GROUP + " group's partitions were not assigned within " + timeout);
			}
			Thread.sleep(100);
			container = this.listeners.getListenerContainer(PointsService.LISTENER_ID);
		}
	}

	private static boolean allConsumersAssigned(MessageListenerContainer container) {
		Map<String, Collection<TopicPartition>> assignments = container.getAssignmentsByClientId();
		return assignments != null && !assignments.isEmpty()
				&& assignments.values().stream().allMatch((partitions) -> partitions != null && !partitions.isEmpty());
	}

	@Override
	public void sendBroken(DemoOrders orders) throws Exception {
		for (OrderPlaced order : orders.broken()) {
			ProducerRecord<Object, Object> record = new ProducerRecord<>(TOPIC, order.userId(), order);
			record.headers()
				.add(DeliveryContext.MESSAGE_ID_HEADER, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
			this.kafka.send(record).get(30, TimeUnit.SECONDS);
		}
		// Bytes that are not JSON: the consumer's ErrorHandlingDeserializer hands them to the dead-letter topic.
		for (int i = 0; i < orders.malformed(); i++) {
			this.kafka.send(TOPIC, "malformed-" + i, DemoOrders.MALFORMED_PAYLOAD.getBytes(StandardCharsets.UTF_8))
				.get(30, TimeUnit.SECONDS);
		}
	}

	/** Waits until the group's committed offsets reach the end of every partition of the topic. */
	@Override
	public void awaitConsumed(Duration timeout) throws Exception {
		KafkaOffsets.awaitCommitted(this.admin, GROUP, TOPIC, timeout);
	}

	@Override
	public FlowReport report(DemoOrders orders) throws Exception {
		return new FlowReport("Kafka (topic " + TOPIC + ", group " + GROUP + ")", this.outbox.sent(outboxDestination()), endOffsets(TOPIC),
				orders.unique().size(), orders.duplicates().size(), FlowReport.invocations(this.meters, GROUP, null),
				FlowReport.invocations(this.meters, GROUP, "processed"),
				FlowReport.invocations(this.meters, GROUP, "duplicate"),
				FlowReport.invocations(this.meters, GROUP, "failed"),
				FlowReport.invocations(this.meters, GROUP, "rejected"), endOffsets(DEAD_LETTER_TOPIC),
				DEAD_LETTER_TOPIC, orders.expectedPoints(), this.points.pointsCredited(PointsService.FLOW),
				this.points.ledgerRows(PointsService.FLOW));
	}


	private long endOffsets(String topic) throws Exception {
		return KafkaOffsets.endOffsets(this.admin, topic);
	}

}
