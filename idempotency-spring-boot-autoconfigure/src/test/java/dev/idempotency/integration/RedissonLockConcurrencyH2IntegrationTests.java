package dev.idempotency.integration;

import java.util.UUID;

/**
 * Lock-then-double-check mode with the JDBC store on H2.
 */
class RedissonLockConcurrencyH2IntegrationTests extends AbstractRedissonLockConcurrencyIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return new String[] { "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1" };
	}

}
