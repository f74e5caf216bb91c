package dev.idempotency.benchmarks.outbox;

import java.util.Map;

import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.ModulithOnlyWhereAsked;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The peer of the relaying applications: Spring Modulith's JDBC event publication registry with its
 * Kafka externalization, on Spring Boot's default pool and the same producer settings as
 * {@link RelayApp}. Events published in a transaction are stored in {@code event_publication} with
 * it; after the commit each is sent to Kafka ({@code @ApplicationModuleListener}: asynchronously, on
 * Spring Boot's task executor) and its publication marked completed once the broker acknowledged it.
 * The only settings that differ from Modulith's defaults: the table is created at start-up, and its
 * Kafka JSON support is off, so that the values are the same JSON strings the relay sends with
 * Spring Boot's {@code StringSerializer}.
 */
final class ModulithApp {

	/** Spring Modulith's publication table. */
	static final String TABLE = "event_publication";

	private final ConfigurableApplicationContext context;

	ModulithApp(String brokers, Database database) {
		Map<String, Object> properties = BootApps.defaultPoolProperties(database);
		properties.put("spring.datasource.hikari.pool-name", "bench-modulith");
		properties.put(ModulithOnlyWhereAsked.PROPERTY, "true");
		properties.put("spring.autoconfigure.exclude",
				"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration");
		properties.put("spring.kafka.bootstrap-servers", brokers);
		properties.put("spring.kafka.producer.acks", "all");
		properties.put("spring.kafka.producer.properties.enable.idempotence", "true");
		properties.put("spring.modulith.events.jdbc.schema-initialization.enabled", "true");
		properties.put("spring.modulith.events.kafka.enable-json", "false");
		properties.put("idempotency.jdbc.initialize-schema", "never");
		// The relaying application claims no keys: no dedup table to check on a fresh database.
		properties.put("idempotency.jdbc.schema-check", "off");
		properties.put("idempotency.jdbc.purge.enabled", "false");
		this.context = BootApps.run(properties, ModulithApplication.class);
	}

	ApplicationEventPublisher events() {
		return this.context;
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
		this.context.close();
	}

}
