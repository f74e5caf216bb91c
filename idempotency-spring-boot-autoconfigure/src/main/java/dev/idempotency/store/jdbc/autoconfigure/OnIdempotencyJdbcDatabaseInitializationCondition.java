package dev.idempotency.store.jdbc.autoconfigure;

import org.springframework.boot.sql.autoconfigure.init.OnDatabaseInitializationCondition;

/**
 * Matches unless {@code idempotency.jdbc.initialize-schema} is {@code never}.
 */
class OnIdempotencyJdbcDatabaseInitializationCondition extends OnDatabaseInitializationCondition {

	OnIdempotencyJdbcDatabaseInitializationCondition() {
		super("Idempotency JDBC", "idempotency.jdbc.initialize-schema");
	}

}
