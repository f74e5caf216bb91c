package dev.idempotency.benchmarks.stream;

import java.util.Map;

import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.PoolSettings;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The starter: a Spring Boot application with a {@code @RedisStreamListener @Idempotent} method
 * (everything auto-configured), whose listener registry is started and stopped per round; with
 * transaction batching, the entries of each read run in one transaction.
 */
final class StarterStreamConsumer extends StreamConsumer {

	private final ConfigurableApplicationContext context;

	private final RedisStreamListenerRegistry registry;

	StarterStreamConsumer(String name, String stream, String group, int concurrency, String storeType,
			boolean transactionBatching, String runId, int batch, PoolSettings pool, Database database) {
		super(name, stream, group, true);
		Map<String, Object> properties = BootApps.withRedis(pool.bootProperties(database, concurrency + 2));
		properties.put("bench.stream", stream);
		properties.put("bench.group", group);
		properties.put("idempotency.store.type", storeType);
		properties.put("idempotency.retention", "1h");
		properties.put("idempotency.redis.key-prefix", "bench:stream:" + runId + ":idem:");
		properties.put("idempotency.jdbc.table-name", LedgerTables.DEDUP_TABLE);
		properties.put("idempotency.jdbc.initialize-schema", "never");
		properties.put("idempotency.jdbc.purge.enabled", "false");
		properties.put("idempotency.redis.stream.concurrency", concurrency);
		properties.put("idempotency.redis.stream.batch-size", batch);
		properties.put("idempotency.redis.stream.poll-timeout", "100ms");
		properties.put("idempotency.redis.stream.min-idle", "2s");
		properties.put("idempotency.redis.stream.claim-interval", "500ms");
		properties.put("idempotency.redis.stream.max-deliveries", "5");
		properties.put("idempotency.redis.stream.transaction-batching.enabled", transactionBatching);
		this.context = BootApps.run(properties, StreamApp.class);
		this.registry = this.context.getBean(RedisStreamListenerRegistry.class);
		this.registry.stop();
	}

	@Override
	String consumerThreadPrefix() {
		// The listener container's consumer threads (not its recovery thread).
		return "redis-stream-" + StreamListener.ID + "-";
	}

	@Override
	void start() {
		this.registry.start();
	}

	@Override
	void stop() {
		this.registry.stop();
	}

	@Override
	public void close() {
		this.registry.stop();
		this.context.close();
	}

}
