package dev.idempotency.store.jdbc.autoconfigure;

import java.util.Set;

import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.support.IdempotencyPurgeJob;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitializationDetector;

/**
 * Makes the JDBC store and its purge job wait for database initialization (the schema script,
 * Flyway or Liquibase).
 */
class JdbcIdempotencyStoreDependsOnDatabaseInitializationDetector
		extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector
		implements DependsOnDatabaseInitializationDetector {

	@Override
	protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
		return Set.of(JdbcIdempotencyStore.class, IdempotencyPurgeJob.class);
	}

}
