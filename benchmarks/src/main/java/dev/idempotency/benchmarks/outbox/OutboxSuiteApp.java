package dev.idempotency.benchmarks.outbox;

import java.util.Map;

import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Database;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What the outbox suite's applications share, so that the relaying applications ({@link RelayApp})
 * and their Spring Modulith peer ({@link ModulithApp}) differ only where the products do: Spring
 * Boot's default pool (no Hikari settings but its name: what a user runs without tuning) and the
 * database's default isolation, Redis left out, the same producer settings ({@code acks=all},
 * idempotence on), and the starter's JDBC store idle (these applications claim no keys: no dedup
 * table to check on a fresh database, no purge).
 */
abstract class OutboxSuiteApp {

	private final ConfigurableApplicationContext context;

	/**
	 * Runs the application.
	 * @param poolName the name of its connection pool
	 * @param own its own properties, over the shared ones
	 * @param application its Spring Boot application class
	 */
	OutboxSuiteApp(String poolName, String brokers, Database database, Map<String, Object> own,
			Class<?> application) {
		Map<String, Object> properties = BootApps.defaultPoolProperties(database);
		properties.put("spring.datasource.hikari.pool-name", poolName);
		properties.put("spring.autoconfigure.exclude",
				"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration");
		properties.put("spring.kafka.bootstrap-servers", brokers);
		properties.put("spring.kafka.producer.acks", "all");
		properties.put("spring.kafka.producer.properties.enable.idempotence", "true");
		properties.put("idempotency.jdbc.initialize-schema", "never");
		properties.put("idempotency.jdbc.schema-check", "off");
		properties.put("idempotency.jdbc.purge.enabled", "false");
		properties.putAll(own);
		this.context = BootApps.run(properties, application);
	}

	ConfigurableApplicationContext context() {
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
