package dev.idempotency.outbox.autoconfigure;

import java.util.Set;

import dev.idempotency.outbox.OutboxRelay;
import dev.idempotency.outbox.jdbc.JdbcOutbox;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitializationDetector;

/**
 * Makes the outbox, its repository and its relay wait for database initialization (the schema
 * script, Flyway or Liquibase).
 */
class OutboxDependsOnDatabaseInitializationDetector extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector
		implements DependsOnDatabaseInitializationDetector {

	@Override
	protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
		return Set.of(JdbcOutboxRepository.class, JdbcOutbox.class, OutboxRelay.class);
	}

}
