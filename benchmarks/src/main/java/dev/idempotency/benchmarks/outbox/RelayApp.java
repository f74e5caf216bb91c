package dev.idempotency.benchmarks.outbox;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.OutboxRelay;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxProperties;

/**
 * One relaying application: the starter's outbox, relay and Kafka sender, auto-configured on the
 * benchmark's outbox table in the database under test, on what {@link OutboxSuiteApp} sets for the
 * suite's applications (Spring Boot's default pool, the database's default isolation), with the
 * relay's default batch size and batches in flight (set
 * {@code -Didempotency.outbox.relay.batch-size=...} to change them); the relay is stopped until a
 * measurement starts it.
 */
final class RelayApp extends OutboxSuiteApp {

	/** The batch of the kafka-batch baseline: records sent before their acknowledgements are awaited. */
	static final int BATCH = 100;

	private final String pollInterval;

	RelayApp(String name, String pollInterval, String brokers, Database database) {
		super("bench-outbox-" + name, brokers, database, relayProperties(pollInterval), RelayApplication.class);
		this.pollInterval = pollInterval;
		relay().stop();
	}

	private static Map<String, Object> relayProperties(String pollInterval) {
		return Map.of("idempotency.outbox.enabled", "true", "idempotency.outbox.table-name", OutboxEnvironment.TABLE,
				"idempotency.outbox.initialize-schema", "never", "idempotency.outbox.purge.enabled", "false",
				"idempotency.outbox.relay.poll-interval", pollInterval, "idempotency.outbox.relay.lease", "60s",
				"idempotency.outbox.relay.send-timeout", "30s");
	}

	String pollInterval() {
		return this.pollInterval;
	}

	/** The relay's batch size, as configured. */
	int batchSize() {
		return context().getEnvironment().getProperty("idempotency.outbox.relay.batch-size", Integer.class,
				new IdempotencyOutboxProperties().getRelay().getBatchSize());
	}

	OutboxRelay relay() {
		return context().getBean(OutboxRelay.class);
	}

	Outbox outbox() {
		return context().getBean(Outbox.class);
	}

	AtomicLong sent() {
		return context().getBean(SentCounter.class).sent();
	}

	AckTimes ackTimes() {
		return context().getBean(AckTimes.class);
	}

	@Override
	void close() {
		relay().stop();
		super.close();
	}

}
