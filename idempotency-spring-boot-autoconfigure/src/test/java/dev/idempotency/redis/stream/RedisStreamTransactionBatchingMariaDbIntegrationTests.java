package dev.idempotency.redis.stream;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TestDatabases;

/**
 * Transaction batching of record-style Redis Stream listeners on MariaDB.
 */
class RedisStreamTransactionBatchingMariaDbIntegrationTests
		extends AbstractRedisStreamTransactionBatchingIntegrationTests {

	@Override
	HikariDataSource directDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	String timeoutParameters() {
		// Milliseconds.
		return "socketTimeout=5000&connectTimeout=2000";
	}

}
