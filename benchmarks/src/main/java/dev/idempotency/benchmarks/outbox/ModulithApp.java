package dev.idempotency.benchmarks.outbox;

import java.util.Map;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.ModulithOnlyWhereAsked;

import org.springframework.context.ApplicationEventPublisher;

/**
 * The peer of the relaying applications: Spring Modulith's JDBC event publication registry with its
 * Kafka externalization, on what {@link OutboxSuiteApp} sets for both (Spring Boot's default pool,
 * the same producer settings as {@link RelayApp}). Events published in a transaction are stored in
 * {@code event_publication} with it; after the commit each is sent to Kafka
 * ({@code @ApplicationModuleListener}: asynchronously, on Spring Boot's task executor) and its
 * publication marked completed once the broker acknowledged it.
 * The only settings that differ from Modulith's defaults: the table is created at start-up, and its
 * Kafka JSON support is off, so that the values are the same JSON strings the relay sends with
 * Spring Boot's {@code StringSerializer}.
 */
final class ModulithApp extends OutboxSuiteApp {

	/** Spring Modulith's publication table. */
	static final String TABLE = "event_publication";

	ModulithApp(String brokers, Database database) {
		super("bench-modulith", brokers, database,
				Map.of(ModulithOnlyWhereAsked.PROPERTY, "true",
						"spring.modulith.events.jdbc.schema-initialization.enabled", "true",
						"spring.modulith.events.kafka.enable-json", "false"),
				ModulithApplication.class);
	}

	ApplicationEventPublisher events() {
		return context();
	}

}
