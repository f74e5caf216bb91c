package dev.idempotency.autoconfigure;

import dev.idempotency.support.IdempotencyTransactionManagerException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Says which transaction manager to configure when the one that would run {@code @Idempotent}
 * methods cannot keep the JDBC store's claims in the business transaction.
 */
class IdempotencyTransactionManagerFailureAnalyzer
		extends AbstractFailureAnalyzer<IdempotencyTransactionManagerException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, IdempotencyTransactionManagerException cause) {
		return new FailureAnalysis(cause.getMessage() + ".", """
				Run @Idempotent methods with the transaction manager of the store's DataSource:
				\t- with Kafka transactions on (spring.kafka.producer.transaction-id-prefix), leave \
				idempotency.transaction-manager unset, or set it to the DataSource's transaction manager bean \
				(Spring Boot names it 'transactionManager'), never to 'kafkaTransactionManager'; the listener \
				container keeps using Kafka's for the offsets;
				\t- with several DataSources, set idempotency.transaction-manager to the manager of the DataSource \
				the store uses, or give the store your own JdbcIdempotencyStore bean on the right DataSource;
				\t- with no transaction manager at all, add spring-boot-starter-jdbc (or JPA) so Spring Boot \
				creates one.
				JTA transaction managers are not supported by the JDBC store.""", cause);
	}

}
