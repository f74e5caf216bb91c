package dev.idempotency.benchmarks.outbox;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.OutboxRelay;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxProperties;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One relaying application: the starter's outbox, relay and Kafka sender, auto-configured on the
 * benchmark's outbox table in the database under test, on Spring Boot's default pool (and the
 * database's default isolation), with the relay's default batch size and batches in flight (set
 * {@code -Didempotency.outbox.relay.batch-size=...} to change them); the relay is stopped until a
 * measurement starts it.
 */
final class RelayApp {

	/** The batch of the kafka-batch baseline: records sent before their acknowledgements are awaited. */
	static final int BATCH = 100;

	private final String pollInterval;

	private final ConfigurableApplicationContext context;

	RelayApp(String name, String pollInterval, String brokers, Database database) {
		this.pollInterval = pollInterval;
		// Spring Boot's default pool (no Hikari settings but its name): what a user runs without tuning.
		Map<String, Object> properties = BootApps.defaultPoolProperties(database);
		properties.put("spring.datasource.hikari.pool-name", "bench-outbox-" + name);
		properties.put("spring.autoconfigure.exclude",
				"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration");
		properties.put("spring.kafka.bootstrap-servers", brokers);
		properties.put("spring.kafka.producer.acks", "all");
		properties.put("spring.kafka.producer.properties.enable.idempotence", "true");
		properties.put("idempotency.jdbc.initialize-schema", "never");
		// The relaying application claims no keys: no dedup table to check on a fresh database.
		properties.put("idempotency.jdbc.schema-check", "off");
		properties.put("idempotency.jdbc.purge.enabled", "false");
		properties.put("idempotency.outbox.enabled", "true");
		properties.put("idempotency.outbox.table-name", OutboxEnvironment.TABLE);
		properties.put("idempotency.outbox.initialize-schema", "never");
		properties.put("idempotency.outbox.purge.enabled", "false");
		properties.put("idempotency.outbox.relay.poll-interval", pollInterval);
		properties.put("idempotency.outbox.relay.lease", "60s");
		properties.put("idempotency.outbox.relay.send-timeout", "30s");
		this.context = BootApps.run(properties, RelayApplication.class);
		relay().stop();
	}

	String pollInterval() {
		return this.pollInterval;
	}

	/** The relay's batch size, as configured. */
	int batchSize() {
		return this.context.getEnvironment().getProperty("idempotency.outbox.relay.batch-size", Integer.class,
				new IdempotencyOutboxProperties().getRelay().getBatchSize());
	}

	OutboxRelay relay() {
		return this.context.getBean(OutboxRelay.class);
	}

	Outbox outbox() {
		return this.context.getBean(Outbox.class);
	}

	AtomicLong sent() {
		return this.context.getBean(SentCounter.class).sent();
	}

	AckTimes ackTimes() {
		return this.context.getBean(AckTimes.class);
	}

	@SuppressWarnings("unchecked")
	KafkaTemplate<String, String> kafka() {
		return this.context.getBean(KafkaTemplate.class);
	}

	JdbcTemplate jdbc() {
		return this.context.getBean(JdbcTemplate.class);
	}

	TransactionTemplate transactions() {
		return new TransactionTemplate(this.context.getBean(PlatformTransactionManager.class));
	}

	void close() {
		relay().stop();
		this.context.close();
	}

}
