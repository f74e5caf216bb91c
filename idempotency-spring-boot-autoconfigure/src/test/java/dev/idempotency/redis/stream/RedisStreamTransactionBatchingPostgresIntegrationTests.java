package dev.idempotency.redis.stream;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * Transaction batching of record-style Redis Stream listeners on PostgreSQL.
 */
class RedisStreamTransactionBatchingPostgresIntegrationTests
		extends AbstractRedisStreamTransactionBatchingIntegrationTests {

	@Override
	HikariDataSource directDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	String timeoutParameters() {
		// Seconds.
		return "socketTimeout=5&connectTimeout=2";
	}

}
