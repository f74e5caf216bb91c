package dev.idempotency.sample;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.kafka.share.metrics.KafkaShareMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.producer.ProducerRecord;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.stereotype.Component;

/**
 * The Kafka share-group flow (KIP-932): the outbox relay sends the order events to the
 * {@value #TOPIC} topic as well, and the {@value #GROUP} share group's consumers
 * ({@link SharePointsService}) take them record by record. Runs on the demo's in-process broker,
 * which has share groups on, unless {@value #ENABLED} says otherwise ({@link EmbeddedKafkaInitializer}).
 */
@Component
@ConditionalOnBooleanProperty(ShareFlow.ENABLED)
public class ShareFlow implements OrderFlow {

	/** Whether the flow runs; decided at start-up unless set. */
	public static final String ENABLED = "demo.kafka-share.enabled";

	/** The topic the share group reads. */
	public static final String TOPIC = "share-orders";

	/** Where records the share group gives up on end up (the starter's default suffix). */
	public static final String DEAD_LETTER_TOPIC = TOPIC + ".DLT";

	/** The share group. */
	public static final String GROUP = "share-points";

	/** The {@code @Idempotent} namespace of the share-group points service. */
	public static final String NAMESPACE = "share-points";

	private final KafkaTemplate<Object, Object> kafka;

	private final KafkaAdmin admin;

	private final KafkaListenerEndpointRegistry listeners;

	private final MeterRegistry meters;

	private final OutboxRows outbox;

	private final PointsBook points;

	public ShareFlow(KafkaTemplate<Object, Object> kafka, KafkaAdmin admin, KafkaListenerEndpointRegistry listeners,
			MeterRegistry meters, OutboxRows outbox, PointsBook points) {
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

	/** Waits until the share container runs (the group reads from the earliest record). */
	@Override
	public void awaitReady(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		MessageListenerContainer container = this.listeners.getListenerContainer(SharePointsService.LISTENER_ID);
		while (container == null || !container.isRunning()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The " + GROUP + " share container did not start within " + timeout);
			}
			Thread.sleep(100);
			container = this.listeners.getListenerContainer(SharePointsService.LISTENER_ID);
		}
	}

	@Override
	public void sendBroken(DemoOrders orders) throws Exception {
		for (OrderPlaced order : orders.broken()) {
			ProducerRecord<Object, Object> record = new ProducerRecord<>(TOPIC, order.userId(), order);
			record.headers()
				.add(DeliveryContext.MESSAGE_ID_HEADER, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
			this.kafka.send(record).get(30, TimeUnit.SECONDS);
		}
		for (int i = 0; i < orders.malformed(); i++) {
			this.kafka.send(TOPIC, "malformed-" + i, DemoOrders.MALFORMED_PAYLOAD.getBytes(StandardCharsets.UTF_8))
				.get(30, TimeUnit.SECONDS);
		}
	}

	/**
	 * Waits until every record on the topic was accepted (processed or skipped) or rejected (after its
	 * dead letter was published). A share group has no committed offsets to compare with the end.
	 */
	@Override
	public void awaitConsumed(Duration timeout) throws Exception {
		long deadline = System.nanoTime() + timeout.toNanos();
		long sent = KafkaOffsets.endOffsets(this.admin, TOPIC);
		while (true) {
			long settled = settled("accept") + settled("reject");
			if (settled >= sent) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Share group " + GROUP + " did not settle " + TOPIC + " within "
						+ timeout + ": " + settled + " of " + sent + " records accepted or rejected");
			}
			Thread.sleep(200);
		}
	}

	private long settled(String type) {
		return (long) this.meters.find(KafkaShareMeters.SHARE_ACKNOWLEDGEMENTS)
			.tag(KafkaShareMeters.GROUP_TAG, GROUP)
			.tag(KafkaShareMeters.TYPE_TAG, type)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	@Override
	public FlowReport report(DemoOrders orders) throws Exception {
		return new FlowReport("Kafka share group (topic " + TOPIC + ", share group " + GROUP + ")",
				this.outbox.sent(outboxDestination()), KafkaOffsets.endOffsets(this.admin, TOPIC),
				orders.unique().size(), orders.duplicates().size(),
				FlowReport.invocations(this.meters, NAMESPACE, null),
				FlowReport.invocations(this.meters, NAMESPACE, "processed"),
				FlowReport.invocations(this.meters, NAMESPACE, "duplicate"),
				FlowReport.invocations(this.meters, NAMESPACE, "failed"),
				FlowReport.invocations(this.meters, NAMESPACE, "rejected"),
				KafkaOffsets.endOffsets(this.admin, DEAD_LETTER_TOPIC), DEAD_LETTER_TOPIC, orders.expectedPoints(),
				this.points.pointsCredited(SharePointsService.FLOW), this.points.ledgerRows(SharePointsService.FLOW));
	}

}
