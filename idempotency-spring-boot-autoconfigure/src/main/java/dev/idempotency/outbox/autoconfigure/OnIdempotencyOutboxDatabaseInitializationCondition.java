package dev.idempotency.outbox.autoconfigure;

import org.springframework.boot.sql.autoconfigure.init.OnDatabaseInitializationCondition;

/**
 * Matches unless {@code idempotency.outbox.initialize-schema} is {@code never}.
 */
class OnIdempotencyOutboxDatabaseInitializationCondition extends OnDatabaseInitializationCondition {

	OnIdempotencyOutboxDatabaseInitializationCondition() {
		super("Idempotency outbox", "idempotency.outbox.initialize-schema");
	}

}
