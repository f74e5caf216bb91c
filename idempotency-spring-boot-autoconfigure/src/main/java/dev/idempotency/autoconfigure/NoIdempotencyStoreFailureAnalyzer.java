package dev.idempotency.autoconfigure;

import dev.idempotency.support.NoIdempotencyStoreException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains how to give {@code @Idempotent} methods a store.
 */
class NoIdempotencyStoreFailureAnalyzer extends AbstractFailureAnalyzer<NoIdempotencyStoreException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, NoIdempotencyStoreException cause) {
		String methods = cause.getMethods().isEmpty() ? "" : " (annotated: " + String.join(", ", cause.getMethods()) + ")";
		if (cause.getCandidates() > 1) {
			return new FailureAnalysis(
					"@Idempotent methods need one default IdempotencyStore, but " + cause.getCandidates()
							+ " store beans exist and none is @Primary" + methods + ".",
					"Mark one store bean @Primary, or name the store on each method with @Idempotent(store = \"beanName\").",
					cause);
		}
		return new FailureAnalysis("@Idempotent methods need an IdempotencyStore, but none is configured" + methods + ".",
				"""
						Configure one of:
						\t- a DataSource (add spring-boot-starter-jdbc and your database's JDBC driver): the JDBC store \
						is then used, in the same transaction as your business data (recommended);
						\t- idempotency.store.type=redis with a RedisConnectionFactory (add \
						spring-boot-starter-data-redis): the Redis store, with a lease, for effects outside a database;
						\t- idempotency.store.type=redisson with org.redisson:redisson on the class path: the same leased \
						store through your RedissonClient (or one built from spring.data.redis.*);
						\t- idempotency.store.type=in-memory, for tests and demos only (keys are lost on restart);
						\t- your own IdempotencyStore bean.
						Or set idempotency.enabled=false to run @Idempotent methods without deduplication.""",
				cause);
	}

}
