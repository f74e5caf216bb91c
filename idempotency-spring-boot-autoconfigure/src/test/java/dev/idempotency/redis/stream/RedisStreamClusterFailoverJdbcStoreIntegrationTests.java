package dev.idempotency.redis.stream;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failover with the JDBC store (H2): the dedup row commits with the ledger row, so whatever the
 * failover lost (an {@code XACK}, a read), an entry that comes back is a duplicate. No order is
 * applied twice.
 */
class RedisStreamClusterFailoverJdbcStoreIntegrationTests extends AbstractRedisStreamClusterFailoverIntegrationTests {

	@Override
	protected String[] storeProperties() {
		return new String[] { "idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false" };
	}

	@Override
	protected void assertAppliedTwice(List<String> twice, Set<String> applied) {
		assertThat(twice).as("orders applied twice").isEmpty();
	}

}
