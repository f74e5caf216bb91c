package dev.idempotency.redis.stream;

import java.util.ArrayList;
import java.util.List;

import dev.idempotency.testsupport.TestDatabases;

/**
 * The conflict of a Redis Stream entry with the JDBC store on the real PostgreSQL (transactional
 * mode).
 */
class RedisStreamConflictPostgresIntegrationTests extends AbstractRedisStreamConflictIntegrationTests {

	@Override
	protected String storeName() {
		return "jdbc";
	}

	@Override
	protected List<String> storeProperties() {
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.addAll(List.of("idempotency.store.type=jdbc", "idempotency.jdbc.initialize-schema=always",
				"idempotency.jdbc.purge.enabled=false"));
		return properties;
	}

}
