package dev.idempotency.sample;

import java.time.Duration;

/**
 * One way the demo's orders reach the points service (Kafka, a Redis Stream): where the order
 * service's outbox sends them, how broken messages are injected, when the consumers are done, and
 * what they did.
 */
public interface OrderFlow {

	/** The outbox destination of the flow's order events, e.g. {@code kafka:orders}. */
	String outboxDestination();

	/**
	 * Waits until the flow's consumers are ready to read, so that the demo's numbers do not depend
	 * on start-up timing.
	 */
	default void awaitReady(Duration timeout) throws Exception {
	}

	/**
	 * Sends the demo's broken messages straight to the broker, as a misbehaving producer would:
	 * poison orders, orders without an id, and payloads that are not JSON.
	 */
	void sendBroken(DemoOrders orders) throws Exception;

	/**
	 * Waits until the consumers have acknowledged (processed, skipped or dead-lettered) everything on
	 * the topic or stream. Call it once the outbox has sent every row.
	 */
	void awaitConsumed(Duration timeout) throws Exception;

	/** What the flow's consumers did, from the broker, the meters and the database. */
	FlowReport report(DemoOrders orders) throws Exception;

}
